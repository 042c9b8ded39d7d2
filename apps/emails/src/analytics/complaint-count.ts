import { complaintMark } from '../complaints/complaint-mark';
import { awaitsDelivery, EmailStatus, RecipientStatus } from '../delivery/status-summary';

/** Where the recipient a complaint names stands on the email it names, as analytics reads it. */
export interface ComplainedRecipient {
  emailStatus: EmailStatus;
  /** Undefined when the email has no such recipient. */
  recipientStatus: RecipientStatus | undefined;
  /** A delivery worker holds the email: an attempt is in flight (or its worker died in one). */
  attemptInFlight: boolean;
  /** The complaints consumer marked the recipient while an attempt to it was in flight. */
  recipientMarked: boolean;
}

/**
 * Whether a complaint counts in analytics, as it marks the email (complaint-mark.ts):
 * - 'count': a server took the message for that address;
 * - 'later': the recipient still waits, and either an attempt to it is in
 *   flight or a complaint marked it during one. The attempt's record (or,
 *   when it left the recipient waiting, a later one) decides whether the email
 *   is marked, so the event is handed back and read again: acknowledged
 *   uncounted now, the complaint was lost whenever it overtook the record of
 *   the attempt that reached the reader, which then marked the email;
 * - 'never': the recipient never got the message, or there is no such one.
 */
export function complaintCount(recipient: ComplainedRecipient): 'count' | 'later' | 'never' {
  const mark = complaintMark(recipient.emailStatus, recipient.recipientStatus, recipient.attemptInFlight);
  if (mark === 'email') return 'count';
  if (mark === 'recipient') return 'later';
  const waiting = recipient.recipientStatus !== undefined && awaitsDelivery(recipient.emailStatus, recipient.recipientStatus);
  return waiting && recipient.recipientMarked ? 'later' : 'never';
}
