import type { EmailStatusValue, RecipientStatusValue } from '@mailroom/contracts';

/** A recipient's delivery state; 'deferred' is waiting for a retry after a temporary failure. */
export type RecipientStatus = RecipientStatusValue;

export type EmailStatus = EmailStatusValue;

/**
 * The states of a recipient whose server took the message: the only ones a
 * complaint reported afterwards marks its email for at once. One suppressed,
 * cancelled, or refused during the exchange never got it, as far as Mailroom
 * has written; one still waiting may be getting it now, its accepted attempt
 * not yet written, which a reported bounce or complaint can overtake
 * (bounce-after-acceptance.ts, complaint-mark.ts).
 */
export const ACCEPTED_BY_SERVER: readonly RecipientStatus[] = ['delivered', 'sent'];

/**
 * A recipient still waiting for delivery on an email being delivered: a
 * worker may be sending to it right now, its server's 250 not yet written,
 * or will retry it. A scheduled email not yet due has sent nothing.
 */
export function awaitsDelivery(emailStatus: EmailStatus, recipientStatus: RecipientStatus): boolean {
  return (recipientStatus === 'queued' || recipientStatus === 'deferred') && emailStatus === 'queued';
}

/**
 * The email's status summarizes its recipients, best outcome first:
 * while any recipient still waits (queued or deferred) the email is 'queued';
 * otherwise it is 'delivered' if any recipient was delivered, else 'sent' if
 * any was handed to the relay, else 'bounced' if any bounced, else 'failed'
 * if any failed, else 'suppressed' (every recipient was suppressed).
 * Each recipient's own outcome stays readable on the email.
 */
export function summarizeEmailStatus(statuses: readonly RecipientStatus[]): EmailStatus {
  const has = (status: RecipientStatus) => statuses.includes(status);
  if (has('queued') || has('deferred')) return 'queued';
  if (has('delivered')) return 'delivered';
  if (has('sent')) return 'sent';
  if (has('bounced')) return 'bounced';
  if (has('failed')) return 'failed';
  return 'suppressed';
}

export interface EmailSummary {
  status: EmailStatus;
  /** When the worker should pick the email up again: the earliest waiting recipient; null when none waits. */
  nextAttemptAt: Date | null;
  /** True when at least one recipient was delivered (deliveredAt is set then). */
  delivered: boolean;
}

export function summarizeRecipients(recipients: ReadonlyArray<{ status: RecipientStatus; nextAttemptAt: Date | null }>, now: Date): EmailSummary {
  const waiting = recipients.filter((recipient) => recipient.status === 'queued' || recipient.status === 'deferred');
  const nextAttemptAt = waiting.length ? new Date(Math.min(...waiting.map((recipient) => (recipient.nextAttemptAt ?? now).getTime()))) : null;
  return {
    status: summarizeEmailStatus(recipients.map((recipient) => recipient.status)),
    nextAttemptAt,
    delivered: recipients.some((recipient) => recipient.status === 'delivered'),
  };
}
