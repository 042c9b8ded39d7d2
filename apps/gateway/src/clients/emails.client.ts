import { Inject, Injectable } from '@nestjs/common';
import { ClientProxy } from '@nestjs/microservices';
import type { MailroomConfig } from '@mailroom/config';
import {
  EMAIL_LIMITS,
  EmailListFilters,
  EmailSendInput,
  EmailsRpc,
  EmailsSubjects,
  IdempotencyInput,
  ListParams,
  RequestContext,
  SuppressionCreateDto,
} from '@mailroom/contracts';
import { DomainError, ErrorCode } from '@mailroom/errors';
import { MAILROOM_CONFIG, RpcClient } from '@mailroom/runtime';
import { NATS_CLIENT } from './nats-client.provider';
import { pageThatFits } from './page-that-fits';

/**
 * An email travels to the emails service as one NATS message, and comes back
 * in one when it is read (GET /v1/emails/{id}, and the send's own answer), so
 * the server's max_payload (1 MB unless raised) caps its size below
 * BODY_LIMIT_BYTES. Say so with 413 before anything is stored, rather than
 * store an email that could never be answered or read back.
 */
const tooLarge = (bytes: number, maxPayload: number) =>
  new DomainError(
    ErrorCode.PayloadTooLarge,
    `The request, with room for each recipient's delivery outcome, comes to about ${bytes} bytes, more than the ${maxPayload} bytes this installation's message bus carries (NATS max_payload); send smaller bodies, fewer or smaller attachments, fewer recipients, or fewer emails per batch.`,
  );

/**
 * What an answer may need beyond the request. Each email is read back on its
 * own, with every recipient's outcome (status, attempts, code and a reply of
 * up to smtpReplyMaxLength characters, at two bytes each in the worst JSON
 * escaping): the email with the most recipients needs the most room, and no
 * email is larger than the whole request. Each email also grows by the
 * fields the service adds (id, status, timestamps, counters), in its own
 * answer and in a batch's list.
 */
const ROOM_PER_RECIPIENT_BYTES = 2 * EMAIL_LIMITS.smtpReplyMaxLength + 512;
const ROOM_PER_EMAIL_BYTES = 1024;

const countAddresses = (value: string | string[] | null | undefined) => (Array.isArray(value) ? value.length : value ? 1 : 0);

function answerRoom(inputs: EmailSendInput[]): number {
  let mostRecipients = 0;
  for (const input of inputs) mostRecipients = Math.max(mostRecipients, countAddresses(input.to) + countAddresses(input.cc) + countAddresses(input.bcc));
  return inputs.length * ROOM_PER_EMAIL_BYTES + mostRecipients * ROOM_PER_RECIPIENT_BYTES;
}

@Injectable()
export class EmailsClient {
  private readonly rpc: RpcClient<EmailsRpc>;

  constructor(@Inject(NATS_CLIENT) client: ClientProxy, @Inject(MAILROOM_CONFIG) config: MailroomConfig) {
    this.rpc = new RpcClient<EmailsRpc>(client, config.RPC_TIMEOUT_MS, 'emails', tooLarge);
  }

  send(ctx: RequestContext, input: EmailSendInput, idempotency?: IdempotencyInput) {
    return this.rpc.request(EmailsSubjects.send, { ctx, input, idempotency }, { answerRoomBytes: answerRoom([input]) });
  }
  batch(ctx: RequestContext, inputs: EmailSendInput[], idempotency?: IdempotencyInput) {
    return this.rpc.request(EmailsSubjects.batch, { ctx, inputs, idempotency }, { answerRoomBytes: answerRoom(inputs) });
  }
  list(ctx: RequestContext, params: ListParams, filters: EmailListFilters) {
    return pageThatFits(params, (page) => this.rpc.request(EmailsSubjects.list, { ctx, params: page, filters }));
  }
  get(ctx: RequestContext, id: string) {
    return this.rpc.request(EmailsSubjects.get, { ctx, id });
  }
  cancel(ctx: RequestContext, id: string) {
    return this.rpc.request(EmailsSubjects.cancel, { ctx, id });
  }
  reschedule(ctx: RequestContext, id: string, scheduledAt: string) {
    return this.rpc.request(EmailsSubjects.reschedule, { ctx, id, scheduledAt });
  }
  listSuppressions(ctx: RequestContext, params: ListParams) {
    return pageThatFits(params, (page) => this.rpc.request(EmailsSubjects.suppressionList, { ctx, params: page }));
  }
  createSuppression(ctx: RequestContext, input: SuppressionCreateDto) {
    return this.rpc.request(EmailsSubjects.suppressionCreate, { ctx, input });
  }
  deleteSuppression(ctx: RequestContext, email: string) {
    return this.rpc.request(EmailsSubjects.suppressionDelete, { ctx, email });
  }
}
