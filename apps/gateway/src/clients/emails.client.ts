import { Inject, Injectable } from '@nestjs/common';
import { ClientProxy } from '@nestjs/microservices';
import type { MailroomConfig } from '@mailroom/config';
import {
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

/**
 * An email travels to the emails service as one NATS message, so the
 * server's max_payload (1 MB unless raised) caps its size below
 * BODY_LIMIT_BYTES. Say so with 413 rather than fail inside the client.
 */
const tooLarge = (bytes: number, maxPayload: number) =>
  new DomainError(
    ErrorCode.PayloadTooLarge,
    `The request encodes to about ${bytes} bytes, more than the ${maxPayload} bytes this installation's message bus carries (NATS max_payload); send fewer or smaller attachments, or fewer emails per batch.`,
  );

@Injectable()
export class EmailsClient {
  private readonly rpc: RpcClient<EmailsRpc>;

  constructor(@Inject(NATS_CLIENT) client: ClientProxy, @Inject(MAILROOM_CONFIG) config: MailroomConfig) {
    this.rpc = new RpcClient<EmailsRpc>(client, config.RPC_TIMEOUT_MS, 'emails', tooLarge);
  }

  send(ctx: RequestContext, input: EmailSendInput, idempotency?: IdempotencyInput) {
    return this.rpc.request(EmailsSubjects.send, { ctx, input, idempotency });
  }
  batch(ctx: RequestContext, inputs: EmailSendInput[], idempotency?: IdempotencyInput) {
    return this.rpc.request(EmailsSubjects.batch, { ctx, inputs, idempotency });
  }
  list(ctx: RequestContext, params: ListParams, filters: EmailListFilters) {
    return this.rpc.request(EmailsSubjects.list, { ctx, params, filters });
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
    return this.rpc.request(EmailsSubjects.suppressionList, { ctx, params });
  }
  createSuppression(ctx: RequestContext, input: SuppressionCreateDto) {
    return this.rpc.request(EmailsSubjects.suppressionCreate, { ctx, input });
  }
  deleteSuppression(ctx: RequestContext, email: string) {
    return this.rpc.request(EmailsSubjects.suppressionDelete, { ctx, email });
  }
}
