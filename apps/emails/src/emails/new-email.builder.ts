import type { Mode, RequestContext } from '@mailroom/contracts';
import type { NewEvent } from '@mailroom/outbox';
import { ulid } from '@mailroom/database';
import { EmailEntity } from '../database/entities/email.entity';
import { RecipientEntity, RecipientKind } from '../database/entities/recipient.entity';
import { emailEvent, SUPPRESSION_LIST_REASON } from './email-events';
import { ParsedEmail } from './email-input.parser';

export interface NewEmail {
  email: EmailEntity;
  recipients: RecipientEntity[];
  /** The email's own event first (queued, scheduled or suppressed), then one email.suppressed per recipient suppressed beside others. */
  events: NewEvent[];
}

/**
 * Turns a parsed request into the rows to insert and the events to append.
 * An address listed more than once is one recipient (to before cc before bcc).
 * Suppressed addresses are recorded as such and never sent to; when every
 * recipient is suppressed the email itself is `suppressed` and never queued.
 */
export function buildNewEmail(parsed: ParsedEmail, ctx: RequestContext, now: Date, suppressed: ReadonlySet<string>): NewEmail {
  // The ULID's time is created_at, so from_date/to_date can bound the id index.
  const id = `email_${ulid(now.getTime())}`;
  const recipients = new Map<string, RecipientEntity>();
  // Each recipient as first written, for the events (see recipientSpelling); the row keeps the lower-case form.
  const spelled = new Map<string, string>();
  const add = (kind: RecipientKind) => (address: { normalized: string; envelope: string }) => {
    if (recipients.has(address.normalized)) return;
    spelled.set(address.normalized, address.envelope);
    recipients.set(
      address.normalized,
      Object.assign(new RecipientEntity(), {
        emailId: id,
        address: address.normalized,
        kind,
        status: suppressed.has(address.normalized) ? 'suppressed' : 'queued',
        attempts: 0,
        smtpCode: null,
        smtpReply: null,
        nextAttemptAt: null,
        attemptLog: [],
        updatedAt: now,
      }),
    );
  };
  parsed.to.forEach(add('to'));
  parsed.cc.forEach(add('cc'));
  parsed.bcc.forEach(add('bcc'));
  const rows = [...recipients.values()];
  const allSuppressed = rows.every((row) => row.status === 'suppressed');
  const status = allSuppressed ? 'suppressed' : parsed.scheduledAt ? 'scheduled' : 'queued';

  const email = Object.assign(new EmailEntity(), {
    id,
    mode: ctx.mode as Mode,
    apiKeyId: ctx.keyId,
    fromAddress: parsed.from.raw,
    fromEmail: parsed.from.address,
    fromDomain: parsed.from.domain,
    to: parsed.to.map((address) => address.raw),
    toAddresses: [...new Set(parsed.to.map((address) => address.normalized))],
    cc: parsed.cc.map((address) => address.raw),
    bcc: parsed.bcc.map((address) => address.raw),
    replyTo: parsed.replyTo.map((address) => address.raw),
    subject: parsed.subject,
    html: parsed.html,
    text: parsed.text,
    headers: parsed.headers,
    attachments: parsed.attachments.map(({ filename, content, contentType, contentId }) => ({ filename, content, contentType, contentId })),
    tags: parsed.tags,
    metadata: parsed.metadata,
    status,
    scheduledAt: parsed.scheduledAt,
    nextAttemptAt: status === 'suppressed' ? null : (parsed.scheduledAt ?? now),
    leaseOwner: null,
    leaseExpiresAt: null,
    attempts: 0,
    messageId: `<${id}@${parsed.from.domain}>`,
    trackOpens: parsed.tracking.opens,
    trackClicks: parsed.tracking.clicks,
    opens: 0,
    clicks: 0,
    firstOpenedAt: null,
    lastOpenedAt: null,
    deliveredAt: null,
    complainedAt: null,
    createdAt: now,
    updatedAt: now,
  } satisfies EmailEntity);

  const suppressedAddresses = rows.filter((row) => row.status === 'suppressed').map((row) => spelled.get(row.address)!);
  if (status === 'suppressed') return { email, recipients: rows, events: [emailEvent('email.suppressed', email, { recipients: suppressedAddresses })] };
  // suppressedRecipients stays for receivers written before the per-recipient events; analytics counts those events only.
  const accepted =
    status === 'scheduled'
      ? emailEvent('email.scheduled', email, { scheduledAt: email.scheduledAt!.toISOString(), suppressedRecipients: suppressedAddresses })
      : emailEvent('email.queued', email, { suppressedRecipients: suppressedAddresses });
  // One each, as a recipient found on the list at delivery gets.
  const suppressedEach = suppressedAddresses.map((recipient) => emailEvent('email.suppressed', email, { recipient, reason: SUPPRESSION_LIST_REASON }));
  return { email, recipients: rows, events: [accepted, ...suppressedEach] };
}
