import { EmailStatus, RecipientStatus, summarizeEmailStatus } from '../delivery/status-summary';

/**
 * The states in which a server had accepted the message for a recipient: the
 * only ones a bounce reported afterwards turns into `bounced`. A recipient
 * that bounced or failed already keeps its outcome; one still waiting is the
 * delivery worker's, and one suppressed or cancelled was never sent.
 */
const ACCEPTED: ReadonlySet<RecipientStatus> = new Set<RecipientStatus>(['delivered', 'sent']);

/**
 * What a bounce of `address` reported after acceptance does to an email:
 * null when it changes nothing, else the email's status once that recipient
 * bounced, by the rule the delivery path uses (a delivered single-recipient
 * email becomes `bounced`; one with another recipient delivered stays
 * `delivered`).
 */
export function bounceAfterAcceptance(recipients: ReadonlyArray<{ address: string; status: RecipientStatus }>, address: string): { emailStatus: EmailStatus } | null {
  const bounced = recipients.find((recipient) => recipient.address === address);
  if (!bounced || !ACCEPTED.has(bounced.status)) return null;
  const statuses = recipients.map((recipient) => (recipient === bounced ? 'bounced' : recipient.status));
  return { emailStatus: summarizeEmailStatus(statuses) };
}
