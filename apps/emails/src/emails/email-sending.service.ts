import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  EmailBatchPayload,
  EmailBatchResponse,
  EmailListItem,
  EmailResponse,
  EmailSendPayload,
  IdempotencyInput,
  RequestContext,
} from '@mailroom/contracts';
import { parseEmailInput, ParsedEmail } from './email-input.parser';
import { toListItem, toResponse } from './email.mapper';
import { EmailWriter } from './email-writer';
import { IdempotencyKeyWait, KEY_IN_USE } from './idempotency-key-wait';
import { IdempotencyStore } from './idempotency.store';
import { NewEmail } from './new-email.builder';
import { SenderPolicy } from './sender-policy';
import { refusingDeletedDomains } from './sending-domain-deleted';
import { SingleSendCommitter } from './single-send.committer';

/** Sends are accepted for asynchronous delivery: 202 Accepted, also when replayed. */
export const SEND_STATUS_CODE = 202;

/**
 * The list envelope around a batch's items. Also applied to a stored answer, since one
 * stored (for an Idempotency-Key) by an earlier release carries only object and data.
 */
function batchEnvelope(items: EmailListItem[]): EmailBatchResponse {
  return { object: 'list', data: items, hasMore: false, totalCount: items.length };
}

/**
 * Accepts emails: checks every rule, then commits the emails, their
 * recipients, their outbox events and the idempotency answer in one
 * transaction, before the API answers. Without a key that is a single
 * statement, which single sends share with their neighbours
 * (SingleSendCommitter). The delivery worker takes over from the committed
 * rows.
 */
@Injectable()
export class EmailSendingService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly writer: EmailWriter,
    private readonly singleSends: SingleSendCommitter,
    private readonly idempotency: IdempotencyStore,
    private readonly policy: SenderPolicy,
    private readonly keyWait: IdempotencyKeyWait,
  ) {}

  async send({ ctx, input, idempotency }: EmailSendPayload): Promise<EmailResponse> {
    const replayed = idempotency && (await this.idempotency.replay<EmailResponse>(ctx.keyId, idempotency));
    if (replayed) return replayed;
    const now = new Date();
    const parsed = parseEmailInput(input, '', now);
    const domainIds = await this.policy.assertMaySendFrom(ctx, [{ domain: parsed.from.domain, field: 'from' }]);
    const respond = (created: NewEmail) => toResponse(created.email, created.recipients);
    const writing = idempotency
      ? this.store(ctx, [parsed], now, domainIds, idempotency, ([created]) => respond(created))
      : this.singleSends.commit({ ctx, parsed, now, fromDomainId: domainIds.get(parsed.from.domain) }).then(respond);
    return refusingDeletedDomains(writing, () => 'from');
  }

  /** All or nothing: the first invalid email fails the whole batch, naming `emails[i].field`. */
  async batch({ ctx, inputs, idempotency }: EmailBatchPayload): Promise<EmailBatchResponse> {
    const replayed = idempotency && (await this.idempotency.replay<EmailBatchResponse>(ctx.keyId, idempotency));
    if (replayed) return batchEnvelope(replayed.data);
    const now = new Date();
    const parsed = inputs.map((input, index) => parseEmailInput(input, `emails[${index}]`, now));
    const domainIds = await this.policy.assertMaySendFrom(
      ctx,
      parsed.map((email, index) => ({ domain: email.from.domain, field: `emails[${index}].from` })),
    );
    const stored = await refusingDeletedDomains(
      this.store(ctx, parsed, now, domainIds, idempotency, (created) => batchEnvelope(created.map((item) => toListItem(item.email)))),
      (index) => `emails[${index}].from`,
    );
    // Lost an Idempotency-Key race? The winner's stored answer may predate the envelope's counts.
    return batchEnvelope(stored.data);
  }

  private async store<R>(
    ctx: RequestContext,
    parsed: ParsedEmail[],
    now: Date,
    domainIds: ReadonlyMap<string, string>,
    idempotency: IdempotencyInput | undefined,
    respond: (created: NewEmail[]) => R,
  ): Promise<R> {
    const emails = parsed.map((email) => ({ ctx, parsed: email, now, fromDomainId: domainIds.get(email.from.domain) }));
    if (!idempotency) return respond(await this.writer.writeAtomically(emails));
    // Another request storing the key now: wait for its answer, holding no connection while it is being written.
    const answer = await this.keyWait.untilFree(idempotency.key, now, () =>
      this.dataSource.transaction(async (manager) => {
        const claim = await this.idempotency.claim(manager, ctx.keyId, idempotency);
        if (claim === 'in_use') return KEY_IN_USE;
        if (claim === 'answered') return null;
        const response = respond(await this.writer.write(manager, emails));
        await this.idempotency.complete(manager, ctx.keyId, idempotency.key, response, SEND_STATUS_CODE);
        return { response };
      }),
    );
    if (answer) return answer.response;
    // Lost the race for the key: the winner has committed (its lock is free), so its answer (or a 409) is there now.
    const replayed = await this.idempotency.replay<R>(ctx.keyId, idempotency);
    if (!replayed) throw new Error('Idempotency key claimed but no stored answer found');
    return replayed;
  }
}
