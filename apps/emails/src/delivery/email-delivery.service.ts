import { Inject, Injectable, Logger } from '@nestjs/common';
import type { MailroomConfig } from '@mailroom/config';
import { isTransactionConflict, retryWhileDatabaseUnavailable } from '@mailroom/database';
import type { NewEvent } from '@mailroom/outbox';
import { MAILROOM_CONFIG, RepeatedFailureLog } from '@mailroom/runtime';
import { AttemptRecorder } from './attempt-recorder';
import type { AttemptRecord } from './attempts.repository';
import { ClaimedEmail, DueRecipient, RecipientUpdate } from './delivery.repository';
import { deliveryOutcomes, outcomeRecordRetries, smtpAttemptDuration } from './delivery-metrics';
import { MessageBuilder } from './message/message-builder';
import { parsedPrivateKey } from './message/parsed-private-key';
import { AttemptResult, transitionRecipient } from './recipient-transition';
import { SenderIdentityCache } from './sender-identity.cache';
import { DELIVERY_TRANSPORT, DeliveryTransport } from './smtp/delivery-transport';
import { SmtpOutcome } from './smtp-outcome';
import { smtpAttemptResult } from './smtp-attempt-result';
import { summarizeRecipients } from './status-summary';
import { simulateAttempt } from './test-mode/simulated-outcome';
import type { TrackingTokens } from '@mailroom/auth';
import { applyTracking } from '../tracking/apply-tracking';
import { SUPPRESSION_LIST_REASON } from '../emails/email-events';
import { recipientSpelling } from '../emails/recipient-spelling';

export const TRACKING_TOKENS = Symbol('TrackingTokens');

/** The envelope sender: on the from domain, so SPF is checked against the record the domain API handed out and DMARC aligns. */
export function envelopeSenderOf(fromDomain: string): string {
  return `bounces@${fromDomain}`;
}

/** The core every email event carries, plus the recipient and the fields of its kind. */
export function deliveryEvent(type: string, email: ClaimedEmail, extra: Record<string, unknown>): NewEvent {
  return {
    type,
    mode: email.mode,
    data: { emailId: email.id, from: email.fromAddress, to: email.to, subject: email.subject, tags: email.tags, ...extra },
  };
}

/**
 * One attempt at one claimed email: the recipients that are due are checked
 * against the suppression list, then sent to (live) or simulated (test), and
 * every outcome is recorded with its events in one transaction.
 */
@Injectable()
export class EmailDelivery {
  private readonly logger = new Logger(EmailDelivery.name);
  /** Every delivery in flight retries on its own through an outage; one line per 30 s says so for all of them. */
  private readonly recordFailures = new RepeatedFailureLog(this.logger, 'recording delivery outcomes');

  constructor(
    private readonly recorder: AttemptRecorder,
    private readonly identities: SenderIdentityCache,
    private readonly messages: MessageBuilder,
    @Inject(DELIVERY_TRANSPORT) private readonly transport: DeliveryTransport,
    @Inject(TRACKING_TOKENS) private readonly trackingTokens: TrackingTokens,
    @Inject(MAILROOM_CONFIG) private readonly config: MailroomConfig,
  ) {}

  /** `due`: the email's recipients to attempt now, as DeliveryRepository.dueRecipients read them for its claim. */
  async deliver(email: ClaimedEmail, due: DueRecipient[], owner: string): Promise<void> {
    const spelled = recipientSpelling(email);
    const results = await this.attempt(email, due, spelled);
    const now = new Date();
    const acceptedStatus = email.mode === 'test' ? 'delivered' : this.transport.acceptedStatus;
    const updates: RecipientUpdate[] = [];
    const events: NewEvent[] = [];
    const suppressions: Array<{ address: string; reason: 'bounce' | 'complaint'; details: string }> = [];
    for (const recipient of due) {
      const result = results.get(recipient.address);
      if (!result) continue;
      const next = transitionRecipient(recipient.attempts, result, { schedule: this.config.DELIVERY_RETRY_SCHEDULE, acceptedStatus, now });
      updates.push({ address: recipient.address, ...next });
      if (next.suppress) suppressions.push({ address: recipient.address, ...next.suppress });
      for (const event of next.events) events.push(deliveryEvent(event.type, email, { recipient: spelled(recipient.address), ...event.extra }));
    }
    const record: AttemptRecord = { email, updates, suppressions, events, summarize: (recipients) => summarizeRecipients(recipients, now) };
    // The SMTP server has answered: while Postgres is away, keep the outcome and try again for as long as it takes.
    // The write is fenced on the lease owner, so once another replica has taken the email over it answers false.
    // Giving up instead (it did, after DELIVERY_LEASE_MS) dropped the email from this worker's in-flight set, and
    // this very process claimed it again once the database was back and sent the message a second time. A write
    // Postgres aborted to break a deadlock rolled back and is written again too: thrown, it did the same.
    const recorded = await retryWhileDatabaseUnavailable(() => this.recorder.record(owner, record), {
      onRetry: () => outcomeRecordRetries.inc(),
      failures: this.recordFailures,
      alsoRetry: isTransactionConflict,
    });
    if (!recorded) {
      this.logger.warn({ emailId: email.id }, 'lease lost during delivery; the worker that took the email over records the outcome');
      return;
    }
    // Only the outcomes written: a recipient a bounce report settled while this attempt was in flight keeps the report's.
    for (const update of updates) if (recorded.has(update.address)) deliveryOutcomes.inc({ outcome: update.status, mode: email.mode });
  }

  /** Keyed by the recipients' stored addresses; `spelled` gives each as the sender wrote it, which is what is sent to. */
  private async attempt(email: ClaimedEmail, due: DueRecipient[], spelled: (address: string) => string): Promise<Map<string, AttemptResult>> {
    const results = new Map<string, AttemptResult>();
    if (!due.length) return results;
    // An address may have been suppressed after the email was accepted (a bounce from another email).
    for (const recipient of due.filter((recipient) => recipient.suppressed)) {
      results.set(recipient.address, { outcome: { kind: 'permanent', code: null, reply: SUPPRESSION_LIST_REASON }, suppressed: true });
    }
    const toSend = due.filter((recipient) => !recipient.suppressed);
    if (!toSend.length) return results;

    if (email.mode === 'test') {
      for (const recipient of toSend) results.set(recipient.address, simulateAttempt(recipient.address, recipient.attempts));
      return results;
    }
    for (const [address, result] of await this.sendLive(email, toSend.map((recipient) => recipient.address), spelled)) results.set(address, result);
    return results;
  }

  private async sendLive(email: ClaimedEmail, addresses: string[], spelled: (address: string) => string): Promise<Map<string, AttemptResult>> {
    const everyone = (outcome: SmtpOutcome, failNow = false) => new Map(addresses.map((address) => [address, { outcome, failNow }]));
    let identity;
    let privateKey;
    try {
      identity = await this.identities.get(email.fromDomain);
      // A key that does not parse is a fault to retry, never a reason to send the message unsigned.
      if (identity) privateKey = parsedPrivateKey(identity.dkim);
    } catch (error) {
      return everyone({ kind: 'temporary', code: null, reply: `4.3.0 could not load the DKIM key of ${email.fromDomain}: ${(error as Error).message}` });
    }
    // The domains service no longer knows the domain: it was deleted after this email was accepted (the
    // in-use check and a send can cross). No retry can bring it back, so fail now rather than for days;
    // the recipient did nothing wrong, so the address is not suppressed.
    if (!identity || !privateKey) return everyone({ kind: 'permanent', code: null, reply: `5.7.0 ${email.fromDomain} is no longer a sending domain of this Mailroom` }, true);
    // Verification lapsed after the email was accepted (a re-check found a record gone): live mail goes only from
    // a verified domain, and a scheduled email must not get round that. Its owner may put the record back and
    // verify again, so the email waits on the retry schedule rather than failing now.
    if (identity.status !== 'verified') {
      return everyone({ kind: 'temporary', code: null, reply: `4.7.0 ${email.fromDomain} is not verified (status ${identity.status}); the email waits for it to be verified again` });
    }

    let raw;
    try {
      // Open pixel and rewritten links under the domain's tracking host, as the domain and the email ask.
      raw = await this.messages.build(applyTracking(email, identity, this.trackingTokens), {
        domainName: email.fromDomain,
        keySelector: identity.dkim.selector,
        privateKey,
      });
    } catch (error) {
      // A build thread that died, or a message that cannot be built: an attempt like any other, on the retry
      // schedule, rather than an email left claimed until its lease runs out and built again and again.
      return everyone({ kind: 'temporary', code: null, reply: `4.3.0 the message could not be built: ${(error as Error).message}` });
    }
    // Sent to as written; the transport keys its outcomes by the lower-case address, as the recipients are stored.
    const started = performance.now();
    const outcomes = await this.transport.deliver(envelopeSenderOf(email.fromDomain), addresses.map(spelled), raw);
    smtpAttemptDuration.observe({ result: smtpAttemptResult(outcomes.values()) }, (performance.now() - started) / 1000);
    this.logger.debug({ emailId: email.id, recipients: addresses.length, outcomes: [...outcomes.values()].map((outcome) => outcome.kind) }, 'delivery attempt');
    return new Map([...outcomes].map(([address, outcome]) => [address, { outcome }]));
  }
}
