import { SmtpOutcome } from './smtp-outcome';

/**
 * Enhanced status codes (RFC 3463) that say the recipient's address itself is
 * bad: no such user or domain (5.1.0–5.1.4), moved away (5.1.6), a domain that
 * takes no mail (5.1.10, RFC 7505), a disabled mailbox (5.2.1). 5.1.7 and 5.1.8
 * are about the sender, and a full mailbox (5.2.2) or a message too big for it
 * (5.2.3) may take mail again, so those are left out, as Postmark and SES do.
 */
const BAD_MAILBOX_STATUSES = new Set(['5.1.0', '5.1.1', '5.1.2', '5.1.3', '5.1.4', '5.1.6', '5.1.10', '5.2.1']);

/** Plain codes a server gives at RCPT TO for an address it does not take: no such mailbox, not local, bad name. */
const MAILBOX_REFUSAL_CODES = new Set([550, 551, 553]);

/** The enhanced status code a reply opens with ('550 5.1.1 …', '550-5.1.1 …' or a bare '5.1.1 …'), or null. */
export function enhancedStatusOf(reply: string): string | null {
  const match = /^(?:[2-5]\d\d[ -])?([245]\.\d{1,3}\.\d{1,3})(?![\d.])/.exec(reply.trim());
  return match ? match[1] : null;
}

/**
 * Whether a permanent refusal says the address is bad, so no later email
 * should go to it (the suppression list). A 5xx about the message (5.3.x
 * too big, 5.6.x content), about policy or spam (5.7.x), about routing
 * (5.4.x) or about the sender bounces the email but says nothing against the
 * address; suppressing on it would silence a good address for good. With an
 * enhanced code, the code decides, whatever the basic code says ("550 4.2.2
 * mailbox full" bounces, as the basic code governs, but suppresses no one).
 * Without one, only a 550, 551 or 553 to the address's own RCPT TO does.
 * A reply to a message with several accepted recipients names none of them:
 * "550 5.1.1" at DATA then bounces them all and suppresses no one.
 */
export function saysTheMailboxIsBad(outcome: SmtpOutcome): boolean {
  if (outcome.kind !== 'permanent' || outcome.senderRefused || outcome.sharedWithOthers) return false;
  const enhanced = enhancedStatusOf(outcome.reply);
  if (enhanced) return BAD_MAILBOX_STATUSES.has(enhanced);
  return outcome.recipientRefused === true && outcome.code !== null && MAILBOX_REFUSAL_CODES.has(outcome.code);
}
