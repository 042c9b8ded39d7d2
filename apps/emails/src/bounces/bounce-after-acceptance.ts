import { ACCEPTED_BY_SERVER, EmailStatus, RecipientStatus, summarizeEmailStatus } from '../delivery/status-summary';

/** A recipient still waiting for delivery: a worker may be sending to it right now, or will retry it. */
const WAITING: readonly RecipientStatus[] = ['queued', 'deferred'];

/**
 * What a bounce of `address` reported after acceptance does to an email:
 * null when it changes nothing (a recipient that bounced or failed already
 * keeps its outcome, one suppressed or cancelled was never sent, and a
 * scheduled email has sent nothing yet), else the email's status once that
 * recipient bounced, by the rule the delivery path uses (a delivered
 * single-recipient email becomes `bounced`; one with another recipient
 * delivered stays `delivered`).
 *
 * A recipient still waiting bounces too: the report can arrive while the
 * attempt the server accepted is in flight (its 250 not yet written), or
 * while a retry is pending after an attempt whose reply was lost or a 4xx.
 * Left waiting, it was delivered or sent again later as if no bounce had been
 * reported; delivery does not overwrite a recipient that no longer waits.
 */
export function bounceAfterAcceptance(
  emailStatus: EmailStatus,
  recipients: ReadonlyArray<{ address: string; status: RecipientStatus }>,
  address: string,
): { emailStatus: EmailStatus } | null {
  const bounced = recipients.find((recipient) => recipient.address === address);
  if (!bounced) return null;
  const waitingToBeSent = WAITING.includes(bounced.status) && emailStatus === 'queued';
  if (!ACCEPTED_BY_SERVER.includes(bounced.status) && !waitingToBeSent) return null;
  const statuses = recipients.map((recipient) => (recipient === bounced ? 'bounced' : recipient.status));
  return { emailStatus: summarizeEmailStatus(statuses) };
}
