import { ACCEPTED_BY_SERVER, awaitsDelivery, EmailStatus, RecipientStatus } from '../delivery/status-summary';

/**
 * What a complaint about one recipient of an email marks:
 * - 'email': the server took the message for that address (delivered or
 *   sent), so the email and the recipient are marked complained of;
 * - 'recipient': the recipient still waits on an email a delivery worker has
 *   claimed (`attemptInFlight`). A reader complains only of mail that reached
 *   them, so this is the attempt in flight whose 250 is not written yet. Only
 *   the recipient is marked;
 *   the record of an attempt that delivers it marks the email
 *   (AttemptsRepository), and one that does not leaves the email unmarked;
 * - null: the recipient never got it as far as Mailroom knows (suppressed,
 *   cancelled, refused during the exchange, waiting with no attempt in
 *   flight, as a deferred one between retries, or of a scheduled email not
 *   yet due), or there is no such recipient: nothing is marked. A mark on a
 *   recipient between retries would mark the email from a later delivery the
 *   reader never complained of (once the suppression was lifted by hand).
 */
export function complaintMark(emailStatus: EmailStatus, recipientStatus: RecipientStatus | undefined, attemptInFlight: boolean): 'email' | 'recipient' | null {
  if (!recipientStatus) return null;
  if (ACCEPTED_BY_SERVER.includes(recipientStatus)) return 'email';
  return attemptInFlight && awaitsDelivery(emailStatus, recipientStatus) ? 'recipient' : null;
}
