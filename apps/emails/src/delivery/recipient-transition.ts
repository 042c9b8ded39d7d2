import { nextAttemptAt } from './retry-schedule';
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
 * A recipient's next state after an attempt: 2xx → delivered or sent;
 * 5xx → bounced and suppressed (bounced only when the 5xx refused the
 * envelope sender, which says nothing about the address); anything temporary → deferred until the next
 * step of the retry schedule (email.delivery_delayed), or failed when the
 * schedule is used up.
 */
export function transitionRecipient(attemptsBefore: number, result: AttemptResult, context: TransitionContext): RecipientTransition {
  const { outcome } = result;
  const smtp = { code: outcome.code, reply: outcome.reply };
  const base = { smtpCode: outcome.code, smtpReply: outcome.reply, nextAttemptAt: null };
  if (result.suppressed) {
    return { ...base, status: 'suppressed', attempts: attemptsBefore, events: [{ type: 'email.suppressed', extra: { reason: outcome.reply } }] };
  }
  const attempts = attemptsBefore + 1;
  if (result.failNow) {
    return { ...base, status: 'failed', attempts, events: [{ type: 'email.failed', extra: { smtp, attempts } }] };
  }
  switch (outcome.kind) {
    case 'accepted': {
      const type = context.acceptedStatus === 'delivered' ? 'email.delivered' : 'email.sent';
      const events: RecipientTransition['events'] = [{ type, extra: { smtp } }];
      if (!result.complained) return { ...base, status: context.acceptedStatus, attempts, events };
      events.push({ type: 'email.complained', extra: {} });
      return { ...base, status: context.acceptedStatus, attempts, events, suppress: { reason: 'complaint', details: 'simulated complaint (test mode)' } };
    }
    case 'permanent': {
      // `suppressed` tells webhook consumers whether the address joined the suppression list.
      const suppressed = !outcome.senderRefused;
      const bounced = { ...base, status: 'bounced' as const, attempts, events: [{ type: 'email.bounced' as const, extra: { smtp, suppressed } }] };
      return suppressed ? { ...bounced, suppress: { reason: 'bounce', details: outcome.reply } } : bounced;
    }
    case 'temporary': {
      const next = result.retryAfterMs !== undefined ? new Date(context.now.getTime() + result.retryAfterMs) : nextAttemptAt(context.schedule, attempts, context.now);
      if (!next) return { ...base, status: 'failed', attempts, events: [{ type: 'email.failed', extra: { smtp, attempts } }] };
      return {
        ...base,
        status: 'deferred',
        attempts,
        nextAttemptAt: next,
        events: [{ type: 'email.delivery_delayed', extra: { smtp, attempts, nextAttemptAt: next.toISOString() } }],
      };
    }
  }
}
