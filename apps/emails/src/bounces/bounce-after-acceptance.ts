import { ACCEPTED_BY_SERVER, EmailStatus, RecipientStatus, summarizeEmailStatus } from '../delivery/status-summary';

/**
 * What a bounce of `address` reported after acceptance does to an email:
 * null when it changes nothing (a recipient that bounced or failed already
 * keeps its outcome, one still waiting is the delivery worker's, and one
 * suppressed or cancelled was never sent), else the email's status once that recipient
 * bounced, by the rule the delivery path uses (a delivered single-recipient
 * email becomes `bounced`; one with another recipient delivered stays
 * `delivered`).
 */
export function bounceAfterAcceptance(recipients: ReadonlyArray<{ address: string; status: RecipientStatus }>, address: string): { emailStatus: EmailStatus } | null {
  const bounced = recipients.find((recipient) => recipient.address === address);
  if (!bounced || !ACCEPTED_BY_SERVER.includes(bounced.status)) return null;
  const statuses = recipients.map((recipient) => (recipient === bounced ? 'bounced' : recipient.status));
  return { emailStatus: summarizeEmailStatus(statuses) };
}
