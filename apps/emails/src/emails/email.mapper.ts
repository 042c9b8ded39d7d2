import type { EmailListItem, EmailResponse, EmailScheduleChange } from '@mailroom/contracts';
import { EmailEntity } from '../database/entities/email.entity';
import { RecipientEntity } from '../database/entities/recipient.entity';
import { recipientSpelling } from './recipient-spelling';

const iso = (date: Date | null) => date?.toISOString() ?? null;

export function toListItem(email: EmailEntity): EmailListItem {
  return {
    id: email.id,
    object: 'email',
    from: email.fromAddress,
    to: email.to,
    subject: email.subject,
    status: email.status,
    createdAt: email.createdAt.toISOString(),
  };
}

export function toScheduleChange(email: EmailEntity): EmailScheduleChange {
  return Object.assign(toListItem(email), { scheduledAt: iso(email.scheduledAt) });
}

/**
 * The list item's fields, then the rest. Object.assign rather than a spread:
 * V8 11 (Node 20) defines every property written after a spread in an
 * object literal through its runtime, about a microsecond each, and this
 * answers every send (scripts/code-check/properties-after-spread.spec.ts).
 */
export function toResponse(email: EmailEntity, recipients: RecipientEntity[]): EmailResponse {
  const spelled = recipientSpelling(email);
  return Object.assign(toListItem(email), {
    cc: email.cc,
    bcc: email.bcc,
    replyTo: email.replyTo,
    html: email.html,
    text: email.text,
    headers: email.headers,
    attachments: email.attachments.map((attachment) => ({
      filename: attachment.filename,
      contentType: attachment.contentType ?? null,
      contentId: attachment.contentId ?? null,
      size: Buffer.byteLength(attachment.content, 'base64'),
    })),
    tags: email.tags,
    metadata: email.metadata,
    opens: email.opens,
    clicks: email.clicks,
    firstOpenedAt: iso(email.firstOpenedAt),
    lastOpenedAt: iso(email.lastOpenedAt),
    deliveredAt: iso(email.deliveredAt),
    complainedAt: iso(email.complainedAt),
    scheduledAt: iso(email.scheduledAt),
    tracking: { opens: email.trackOpens, clicks: email.trackClicks },
    recipients: recipients.map((recipient) => ({
      address: spelled(recipient.address),
      kind: recipient.kind,
      status: recipient.status,
      attempts: recipient.attempts,
      smtpCode: recipient.smtpCode,
      smtpReply: recipient.smtpReply,
      nextAttemptAt: iso(recipient.nextAttemptAt),
      // Postgres wrote `at` in JSON as a timestamptz with its offset and microseconds: the API's form is ISO 8601 in UTC.
      attemptLog: recipient.attemptLog.map((attempt) => Object.assign({}, attempt, { at: new Date(attempt.at).toISOString() })),
    })),
  });
}
