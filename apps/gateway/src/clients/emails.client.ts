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
import type { NatsConnection } from 'nats';
import { NATS_CLIENT } from './nats-client.provider';

/** Room left for the NATS headers and Nest's envelope around the payload. */
const ENVELOPE_BYTES = 4096;

@Injectable()
export class EmailsClient {
  private readonly rpc: RpcClient<EmailsRpc>;

  constructor(
    @Inject(NATS_CLIENT) private readonly client: ClientProxy,
    @Inject(MAILROOM_CONFIG) config: MailroomConfig,
  ) {
    this.rpc = new RpcClient<EmailsRpc>(client, config.RPC_TIMEOUT_MS, 'emails');
  }

  send(ctx: RequestContext, input: EmailSendInput, idempotency?: IdempotencyInput) {
    const payload = { ctx, input, idempotency };
    this.assertFitsNats(payload);
    return this.rpc.request(EmailsSubjects.send, payload);
  }
  batch(ctx: RequestContext, inputs: EmailSendInput[], idempotency?: IdempotencyInput) {
    const payload = { ctx, inputs, idempotency };
    this.assertFitsNats(payload);
    return this.rpc.request(EmailsSubjects.batch, payload);
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

  /**
   * An email travels to the emails service as one NATS message, so the
   * server's max_payload (1 MB unless raised) caps its size below
   * BODY_LIMIT_BYTES. Say so with 413 rather than fail inside the client.
   */
  private assertFitsNats(payload: unknown): void {
    let maxPayload: number | undefined;
    try {
      maxPayload = this.client.unwrap<NatsConnection>().info?.max_payload;
    } catch {
      return; // Not connected yet: the publish itself will tell.
    }
    if (!maxPayload) return;
    const size = Buffer.byteLength(JSON.stringify(payload)) + ENVELOPE_BYTES;
    if (size > maxPayload) {
      throw new DomainError(
        ErrorCode.PayloadTooLarge,
        `The request encodes to about ${size} bytes, more than the ${maxPayload} bytes this installation's message bus carries (NATS max_payload); send fewer or smaller attachments, or fewer emails per batch.`,
      );
    }
  }
}
