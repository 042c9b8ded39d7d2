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
import { callerStoppedWaiting, IdempotencyKeyWait, KEY_IN_USE, RpcDeadline } from '@mailroom/runtime';
import { callerGone } from './caller-gone';
import { parseEmailInput, ParsedEmail } from './email-input.parser';
import { toListItem, toResponse } from './email.mapper';
import { EmailToStore, EmailWriter, everyWritten } from './email-writer';
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

/** The emails of one request, ready to be written. */
function toStore(ctx: RequestContext, parsed: ParsedEmail[], now: Date, domainIds: ReadonlyMap<string, string>, deadline?: RpcDeadline): EmailToStore[] {
  return parsed.map((email) => ({ ctx, parsed: email, now, fromDomainId: domainIds.get(email.from.domain), deadline }));
}

/**
 * Accepts emails: checks every rule, then commits the emails, their
 * recipients, their outbox events and the idempotency answer in one
 * transaction, before the API answers. Without a key that is a single
 * statement, which single sends share with their neighbours
 * (SingleSendCommitter). The delivery worker takes over from the committed
 * rows. A request whose caller (the gateway) has stopped waiting by the time
 * its write holds a connection is dropped, nothing written: the caller
 * answered 503, and its client, told nothing was sure, may well send it again.
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

  async send({ ctx, input, idempotency }: EmailSendPayload, deadline?: RpcDeadline): Promise<EmailResponse> {
    const replayed = idempotency && (await this.idempotency.replay<EmailResponse>(ctx.keyId, idempotency));
    if (replayed) return replayed;
    const now = new Date();
    const parsed = parseEmailInput(input, '', now);
    const domainIds = await this.policy.assertMaySendFrom(ctx, [{ domain: parsed.from.domain, field: 'from' }]);
    const respond = (created: NewEmail) => toResponse(created.email, created.recipients);
    const emails = toStore(ctx, [parsed], now, domainIds, deadline);
    const writing = idempotency ? this.store(emails, idempotency, ([created]) => respond(created)) : this.singleSends.commit(emails[0]).then(respond);
    return refusingDeletedDomains(writing, () => 'from');
  }

  /** All or nothing: the first invalid email fails the whole batch, naming `emails[i].field`. */
  async batch({ ctx, inputs, idempotency }: EmailBatchPayload, deadline?: RpcDeadline): Promise<EmailBatchResponse> {
    const replayed = idempotency && (await this.idempotency.replay<EmailBatchResponse>(ctx.keyId, idempotency));
    if (replayed) return batchEnvelope(replayed.data);
    const now = new Date();
    const parsed = inputs.map((input, index) => parseEmailInput(input, `emails[${index}]`, now));
    const domainIds = await this.policy.assertMaySendFrom(
      ctx,
      parsed.map((email, index) => ({ domain: email.from.domain, field: `emails[${index}].from` })),
    );
    const stored = await refusingDeletedDomains(
      this.store(toStore(ctx, parsed, now, domainIds, deadline), idempotency, (created) => batchEnvelope(created.map((item) => toListItem(item.email)))),
      (index) => `emails[${index}].from`,
    );
    // Lost an Idempotency-Key race? The winner's stored answer may predate the envelope's counts.
    return batchEnvelope(stored.data);
  }

  /** The emails of one request, all of them or none. */
  private async store<R>(emails: EmailToStore[], idempotency: IdempotencyInput | undefined, respond: (created: NewEmail[]) => R): Promise<R> {
    if (!idempotency) return respond(everyWritten(await this.writer.writeAtomically(emails)));
    const [{ ctx, now, deadline }] = emails;
    // Another request storing the key now: wait for its answer, holding no connection while it is being written.
    const answer = await this.keyWait.untilFree(idempotency.key, now, () =>
      this.dataSource.transaction(async (manager) => {
        // Holding a connection, before the first statement: the transaction then ends with nothing written, the key not claimed.
        if (callerGone(deadline, emails.length)) throw callerStoppedWaiting();
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
