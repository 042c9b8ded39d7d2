import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import {
  EmailBatchPayload,
  EmailBatchResponse,
  EmailResponse,
  EmailSendPayload,
  IdempotencyInput,
  RequestContext,
} from '@mailroom/contracts';
import { appendEvents } from '@mailroom/outbox';
import { parseEmailInput, ParsedEmail } from './email-input.parser';
import { toListItem, toResponse } from './email.mapper';
import { EmailsRepository } from './emails.repository';
import { IdempotencyStore } from './idempotency.store';
import { buildNewEmail, NewEmail } from './new-email.builder';
import { SenderPolicy } from './sender-policy';

/** Sends are accepted for asynchronous delivery: 202 Accepted, also when replayed. */
export const SEND_STATUS_CODE = 202;
const PURGE_EVERY_MS = 60 * 60 * 1000;

/**
 * Accepts emails: checks every rule, then commits the emails, their
 * recipients, their outbox events and the idempotency answer in one
 * transaction, before the API answers. The delivery worker takes over from
 * the committed rows.
 */
@Injectable()
export class EmailSendingService implements OnModuleInit, OnModuleDestroy {
  private purgeTimer?: NodeJS.Timeout;

  constructor(
    private readonly repository: EmailsRepository,
    private readonly idempotency: IdempotencyStore,
    private readonly policy: SenderPolicy,
  ) {}

  async send({ ctx, input, idempotency }: EmailSendPayload): Promise<EmailResponse> {
    const replayed = idempotency && (await this.idempotency.replay<EmailResponse>(ctx.keyId, idempotency));
    if (replayed) return replayed;
    const now = new Date();
    const parsed = parseEmailInput(input, '', now);
    await this.policy.assertMaySendFrom(ctx, [{ domain: parsed.from.domain, field: 'from' }]);
    return this.store(ctx, [parsed], now, idempotency, ([created]) => toResponse(created.email, created.recipients));
  }

  /** All or nothing: the first invalid email fails the whole batch, naming `emails[i].field`. */
  async batch({ ctx, inputs, idempotency }: EmailBatchPayload): Promise<EmailBatchResponse> {
    const replayed = idempotency && (await this.idempotency.replay<EmailBatchResponse>(ctx.keyId, idempotency));
    if (replayed) return replayed;
    const now = new Date();
    const parsed = inputs.map((input, index) => parseEmailInput(input, `emails[${index}]`, now));
    await this.policy.assertMaySendFrom(
      ctx,
      parsed.map((email, index) => ({ domain: email.from.domain, field: `emails[${index}].from` })),
    );
    return this.store(ctx, parsed, now, idempotency, (created) => ({
      object: 'list',
      data: created.map((item) => toListItem(item.email)),
    }));
  }

  onModuleInit(): void {
    this.purgeTimer = setInterval(() => void this.idempotency.purgeExpired().catch(() => undefined), PURGE_EVERY_MS);
    this.purgeTimer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.purgeTimer);
  }

  private async store<R>(
    ctx: RequestContext,
    parsed: ParsedEmail[],
    now: Date,
    idempotency: IdempotencyInput | undefined,
    respond: (created: NewEmail[]) => R,
  ): Promise<R> {
    const answer = await this.repository.dataSource.transaction(async (manager) => {
      // Blocks while a concurrent request holds the same key; false once it committed.
      if (idempotency && !(await this.idempotency.claim(manager, ctx.keyId, idempotency))) return null;
      const addresses = parsed.flatMap((email) => [...email.to, ...email.cc, ...email.bcc].map((address) => address.normalized));
      const suppressed = await this.repository.suppressedAmong(manager, ctx.mode, [...new Set(addresses)]);
      const created = parsed.map((email) => buildNewEmail(email, ctx, now, suppressed));
      await this.repository.insert(manager, created);
      await appendEvents(
        manager,
        'emails',
        created.map((item) => item.event),
      );
      const response = respond(created);
      if (idempotency) await this.idempotency.complete(manager, ctx.keyId, idempotency.key, response, SEND_STATUS_CODE);
      return { response };
    });
    if (answer) return answer.response;
    // Lost the race for the key: the winner has committed, so its answer (or a 409) is there now.
    const replayed = await this.idempotency.replay<R>(ctx.keyId, idempotency!);
    if (!replayed) throw new Error('Idempotency key claimed but no stored answer found');
    return replayed;
  }
}
