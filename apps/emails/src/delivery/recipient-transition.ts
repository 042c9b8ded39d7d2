import { EMAIL_LIMITS } from '@mailroom/contracts';
import { nextAttemptAt } from './retry-schedule';
import { saysTheMailboxIsBad } from './mailbox-refusal';
import { SmtpOutcome } from './smtp-outcome';
import { RecipientStatus } from './status-summary';

export type DeliveryEventType = 'email.sent' | 'email.delivered' | 'email.delivery_delayed' | 'email.bounced' | 'email.failed' | 'email.suppressed' | 'email.complained';

/** What one attempt did for one recipient, from SMTP or from the test-mode simulator. */
export interface AttemptResult {
  outcome: SmtpOutcome;
  /** Fail at once instead of retrying (test mode's failed@). */
  failNow?: boolean;
  /** The address was suppressed before anything was sent. */
  suppressed?: boolean;
  /** Delivered, then complained about (test mode's complained@). */
  complained?: boolean;
  /** Retry after this long instead of the schedule's wait (test mode's delayed@). */
  retryAfterMs?: number;
}

export interface RecipientTransition {
  status: RecipientStatus;
  attempts: number;
  nextAttemptAt: Date | null;
  smtpCode: number | null;
  smtpReply: string | null;
  /** The server the reply is from (SmtpOutcome.host). */
  smtpHost: string | null;
  /** Events to append, in order, with the fields of their kind. */
  events: Array<{ type: DeliveryEventType; extra: Record<string, unknown> }>;
  /** The address joins the suppression list. */
  suppress?: { reason: 'bounce' | 'complaint'; details: string };
}

export interface TransitionContext {
  schedule: readonly number[];
  /** 'delivered' in mx mode (and test mode), 'sent' through a relay. */
  acceptedStatus: 'delivered' | 'sent';
  now: Date;
}

/**
 * A server's reply as it can be kept. It can run to many lines; what is kept
 * must leave an email small enough to read back in one NATS message. And any
 * server may put a NUL in it, which Postgres stores in neither text nor
 * jsonb: the attempt could never be recorded, so the lease ran out and the
 * message went out again, for ever.
 */
export function storableReply(reply: string): string {
  const kept = reply.length > EMAIL_LIMITS.smtpReplyMaxLength ? reply.slice(0, EMAIL_LIMITS.smtpReplyMaxLength) : reply;
  return kept.includes('\u0000') ? kept.replaceAll('\u0000', '\uFFFD') : kept;
}

/**
 * A recipient's next state after an attempt: 2xx → delivered or sent;
 * 5xx → bounced, and suppressed only when the reply says the mailbox is bad
 * (see mailbox-refusal.ts); anything temporary → deferred until the next
 * step of the retry schedule (email.delivery_delayed), or failed when the
 * schedule is used up.
 */
export function transitionRecipient(attemptsBefore: number, result: AttemptResult, context: TransitionContext): RecipientTransition {
  const { outcome } = result;
  const reply = storableReply(outcome.reply);
  const smtp = { code: outcome.code, reply, host: outcome.host ?? null };
  // Written out rather than spread from a shared base: this runs for every recipient of every attempt (scripts/code-check/properties-after-spread.spec.ts).
  const to = (status: RecipientStatus, attempts: number, events: RecipientTransition['events'], nextAttemptAt: Date | null = null): RecipientTransition => ({
    status,
    attempts,
    nextAttemptAt,
    smtpCode: outcome.code,
    smtpReply: reply,
    smtpHost: smtp.host,
    events,
  });
  if (result.suppressed) return to('suppressed', attemptsBefore, [{ type: 'email.suppressed', extra: { reason: reply } }]);
  const attempts = attemptsBefore + 1;
  if (result.failNow) return to('failed', attempts, [{ type: 'email.failed', extra: { smtp, attempts } }]);
  switch (outcome.kind) {
    case 'accepted': {
      const type = context.acceptedStatus === 'delivered' ? 'email.delivered' : 'email.sent';
      const accepted = to(context.acceptedStatus, attempts, [{ type, extra: { smtp } }]);
      if (!result.complained) return accepted;
      accepted.events.push({ type: 'email.complained', extra: {} });
      accepted.suppress = { reason: 'complaint', details: 'simulated complaint (test mode)' };
      return accepted;
    }
    case 'permanent': {
      // `suppressed` tells webhook consumers whether the address joined the suppression list.
      const suppressed = saysTheMailboxIsBad(outcome);
      const bounced = to('bounced', attempts, [{ type: 'email.bounced', extra: { smtp, suppressed } }]);
      if (suppressed) bounced.suppress = { reason: 'bounce', details: reply };
      return bounced;
    }
    case 'temporary': {
      const next = result.retryAfterMs !== undefined ? new Date(context.now.getTime() + result.retryAfterMs) : nextAttemptAt(context.schedule, attempts, context.now);
      if (!next) return to('failed', attempts, [{ type: 'email.failed', extra: { smtp, attempts } }]);
      return to('deferred', attempts, [{ type: 'email.delivery_delayed', extra: { smtp, attempts, nextAttemptAt: next.toISOString() } }], next);
    }
  }
}
