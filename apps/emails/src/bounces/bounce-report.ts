import { isPlainObject } from '@mailroom/contracts';
import { enhancedStatusOf, saysTheMailboxIsBad } from '../delivery/mailbox-refusal';
import { storableReply } from '../delivery/recipient-transition';
import { outcomeFromReply } from '../delivery/smtp-outcome';
import { reportedAddress } from '../reports/reported-address';

/** An email.bounced an internal service published, as the bounce consumer applies it. */
export interface BounceReport {
  /** The recipient in its stored form. */
  address: string;
  emailId: string | null;
  smtpCode: number | null;
  /** The receiving server's reply as a recipient keeps one, or null when the report carries none. */
  smtpReply: string | null;
  /** What the suppression list says of the address. */
  details: string;
  /** The address joins the suppression list: by the rule a bounce during delivery follows, or with no reply given. */
  suppress: boolean;
}

export type BounceReading = { report: BounceReport } | { ignored: string };

/**
 * Reads the data of a reported bounce. A bounce is permanent, so a report
 * with an SMTP code that is not 5xx (a 4xx "delayed" DSN, say) is ignored,
 * as is one without a recipient Mailroom could have sent to: neither could
 * ever be applied, so both are acknowledged rather than redelivered.
 */
export function readBounceReport(data: Record<string, unknown>): BounceReading {
  // Every email.bounced Mailroom's delivery writes says whether the address joined the list; a report does not.
  // The relay's Mailroom-Origin header already tells them apart, but during a rolling upgrade a replica still
  // running the previous version publishes its bounces unmarked, and one with `suppressed: false` (the server
  // refused the envelope sender) must not suppress its recipient here.
  if (typeof data.suppressed === 'boolean') return { ignored: 'carries suppressed, as the bounces Mailroom delivery wrote (and applied) do' };
  const notABounce = whyNoBounce(data);
  if (notABounce) return { ignored: notABounce };
  const address = reportedAddress(data.recipient)!;
  const smtp = smtpOf(data);
  const smtpReply = typeof smtp.reply === 'string' && smtp.reply.trim() ? storableReply(smtp.reply) : null;
  // A reply given alone has its code read off its start (whyNoBounce made sure it is a 5xx, if any): the recipient
  // keeps it as smtpCode, as it would the same reply to RCPT TO, and the suppression rule reads the same code.
  const code = (smtp.code ?? (smtpReply === null ? null : outcomeFromReply(smtpReply).code)) as number | null;
  return {
    report: {
      address,
      emailId: typeof data.emailId === 'string' ? data.emailId : null,
      smtpCode: code,
      smtpReply,
      details: smtpReply ?? 'bounce reported',
      suppress: reportSuppresses(code, smtpReply),
    },
  };
}

/**
 * Whether a report puts its address on the suppression list: when its reply
 * says the mailbox is bad, by the rule of a bounce during delivery
 * (mailbox-refusal.ts), since a DSN's full mailbox, spam or content refusal
 * leaves a good address deliverable, as the same reply to RCPT TO would. A
 * DSN answers for its one recipient, as that recipient's own RCPT TO reply
 * does, so a plain 550, 551 or 553 counts (`code` is smtp.code, else the one
 * read off the reply's start). A report no code can be read from (no
 * smtp at all, or free text such as "user unknown") says only that the
 * address bounced, and is taken at its word, as before the rule applied.
 */
function reportSuppresses(code: number | null, reply: string | null): boolean {
  const replied = reply ?? '';
  if (code === null && enhancedStatusOf(replied) === null) return true;
  return saysTheMailboxIsBad({ kind: 'permanent', code, reply: replied, recipientRefused: true });
}

/**
 * Why the data of an email.bounced says no address bounced, or null when it
 * does: no recipient Mailroom could have sent to, an smtp that is no object or
 * whose reply is no string (null is none given), or an SMTP code that is no
 * permanent failure (a 4xx "delayed" DSN), given as smtp.code or, without
 * one, at the start of smtp.reply. Analytics counts no bounce for
 * such an event either, as the email it names stays as it was. Mailroom's own
 * bounces always pass: a valid recipient, and a 5xx or no code.
 */
export function whyNoBounce(data: Record<string, unknown>): string | null {
  if (!reportedAddress(data.recipient)) return 'no valid recipient address';
  // Read as no reply, a reply given in another shape (smtp as one string, a reply of several lines as an array)
  // suppressed its address, as a report that says only "bounced" does: a full mailbox went on the list for good.
  if (data.smtp != null && !isPlainObject(data.smtp)) return 'smtp: must be an object of code and reply';
  const smtp = smtpOf(data);
  if (smtp.reply != null && typeof smtp.reply !== 'string') return 'smtp.reply: must be a string';
  const code = smtp.code ?? null;
  if (code !== null) return isPermanentCode(code) ? null : 'smtp.code is no permanent (5xx) failure';
  // A reply given alone has its code read off its start, as the suppression rule reads it: `421 try later` without
  // smtp.code was applied as a bounce (and counted in analytics) where the same report with code 421 was ignored.
  const replyCode = typeof smtp.reply === 'string' ? outcomeFromReply(smtp.reply).code : null;
  if (replyCode !== null && !isPermanentCode(replyCode)) return 'the code smtp.reply starts with is no permanent (5xx) failure';
  return null;
}

function smtpOf(data: Record<string, unknown>): Record<string, unknown> {
  return isPlainObject(data.smtp) ? data.smtp : {};
}

function isPermanentCode(code: unknown): code is number {
  return Number.isInteger(code) && (code as number) >= 500 && (code as number) <= 599;
}
