import { ACCEPTED_BY_SERVER, awaitsDelivery, EmailStatus, RecipientStatus, summarizeEmailStatus } from '../delivery/status-summary';

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
  if (!ACCEPTED_BY_SERVER.includes(bounced.status) && !awaitsDelivery(emailStatus, bounced.status)) return null;
  const statuses = recipients.map((recipient) => (recipient === bounced ? 'bounced' : recipient.status));
  return { emailStatus: summarizeEmailStatus(statuses) };
}
