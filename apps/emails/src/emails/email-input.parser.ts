import { EMAIL_LIMITS, EmailSendInput, fieldPath, isIsoTimestamp, millisecondsRoundedUp, ParsedAddress, parseEmailAddress, RESERVED_HEADERS } from '@mailroom/contracts';
import { DomainError, ErrorCode, excerptForMessage, quotedForMessage } from '@mailroom/errors';
import { addressFitsHeaderLines } from './address-header-line';
import { assertAttachmentTypeFits } from './attachment-type';
import { base64Problem } from './base64-problem';
import { invalidAddress } from './invalid-address';

export interface ParsedAttachment {
  filename: string;
  content: string;
  contentType?: string;
  contentId?: string;
  size: number;
}

/** A send request after every rule passed: addresses parsed, sizes measured, schedule checked. */
export interface ParsedEmail {
  from: ParsedAddress;
  to: ParsedAddress[];
  cc: ParsedAddress[];
  bcc: ParsedAddress[];
  replyTo: ParsedAddress[];
  subject: string;
  html: string | null;
  text: string | null;
  headers: Record<string, string>;
  attachments: ParsedAttachment[];
  tags: string[];
  metadata: Record<string, string>;
  scheduledAt: Date | null;
  tracking: { opens: boolean | null; clicks: boolean | null };
}

const HEADER_NAME = /^[!-9;-~]+$/; // RFC 5322 field-name: printable ASCII except ':'
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Whether a string holds more than `max` characters, counted as the README and
 * the DTO's length rules (the subject's, a filename's) count them: an emoji is
 * one character, not the two UTF-16 code units of String.length.
 */
const isLongerThan = (value: string, max: number) => value.length > max && [...value].length > max;

const field = (prefix: string, name: string) => (prefix ? `${prefix}.${name}` : name);

function addresses(value: string | string[] | null | undefined, name: string): ParsedAddress[] {
  // The gateway's @IsOptional lets null through as "not given"; it means the same here.
  if (value === undefined || value === null) return [];
  const list = typeof value === 'string' ? [value] : value;
  return list.map((raw, index) => {
    const parsed = parseEmailAddress(raw);
    const where = typeof value === 'string' ? name : `${name}[${index}]`;
    if (!parsed) throw invalidAddress(where, raw);
    if (!addressFitsHeaderLines(parsed.raw)) {
      throw DomainError.validation(where, 'the display name holds a word too long for one line of the message (998 characters, quotes included); put spaces in it');
    }
    return parsed;
  });
}

function headers(value: Record<string, string> | undefined, name: string): Record<string, string> {
  const entries = Object.entries(value ?? {});
  if (entries.length > EMAIL_LIMITS.headersMax) throw DomainError.validation(name, `at most ${EMAIL_LIMITS.headersMax} headers`);
  const seen = new Set<string>();
  for (const [header, content] of entries) {
    const lower = header.toLowerCase();
    if (header.length > EMAIL_LIMITS.headerNameMaxLength) {
      throw DomainError.validation(name, `header names must be at most ${EMAIL_LIMITS.headerNameMaxLength} characters (${quotedForMessage(excerptForMessage(header, 24))} has ${header.length})`);
    }
    if (!HEADER_NAME.test(header)) throw DomainError.validation(fieldPath(name, header), 'is not a valid header name');
    const reserved = RESERVED_HEADERS.get(lower);
    if (reserved) throw DomainError.validation(fieldPath(name, header), reserved);
    if (seen.has(lower)) throw DomainError.validation(fieldPath(name, header), 'is given twice (header names are case-insensitive)');
    if (/[\r\n]/.test(content)) throw DomainError.validation(fieldPath(name, header), 'must not contain CR or LF');
    // nodemailer leaves out a header whose value trims to nothing: it would be stored and shown, but never sent.
    if (!content.trim()) throw DomainError.validation(fieldPath(name, header), 'must not be blank');
    if (isLongerThan(content, EMAIL_LIMITS.headerValueMaxLength)) {
      throw DomainError.validation(fieldPath(name, header), `must be at most ${EMAIL_LIMITS.headerValueMaxLength} characters`);
    }
    seen.add(lower);
  }
  return Object.fromEntries(entries);
}

function attachments(value: EmailSendInput['attachments'], name: string): ParsedAttachment[] {
  let total = 0;
  const firstWithContentId = new Map<string, number>();
  const parsed = (value ?? []).map((attachment, index) => {
    if (typeof attachment.contentId === 'string') assertContentIdUnique(attachment.contentId, index, firstWithContentId, name);
    const notBase64 = base64Problem(attachment.content);
    if (notBase64) throw DomainError.validation(`${name}[${index}].content`, notBase64);
    assertAttachmentTypeFits(attachment, `${name}[${index}]`);
    const size = Buffer.byteLength(attachment.content, 'base64');
    total += size;
    // Field by field: what a NATS caller adds beyond them is not stored.
    return { filename: attachment.filename, content: attachment.content, contentType: attachment.contentType, contentId: attachment.contentId, size };
  });
  if (total > EMAIL_LIMITS.attachmentsMaxBytes) {
    throw new DomainError(
      ErrorCode.PayloadTooLarge,
      `${name}: the attachments decode to ${total} bytes; the limit is ${EMAIL_LIMITS.attachmentsMaxBytes} bytes per email`,
    );
  }
  return parsed;
}

/** Some mail clients match cid: references without regard to case, to which two ids differing only in case name one image. */
function assertContentIdUnique(contentId: string, index: number, firstWithContentId: Map<string, number>, name: string): void {
  const key = contentId.toLowerCase();
  const first = firstWithContentId.get(key);
  if (first !== undefined) {
    throw DomainError.validation(
      `${name}[${index}].contentId`,
      `${quotedForMessage(contentId)} is already the contentId of ${name}[${first}]; a cid: reference must name one attachment`,
    );
  }
  firstWithContentId.set(key, index);
}

function metadata(value: Record<string, string> | undefined, name: string): Record<string, string> {
  const entries = Object.entries(value ?? {});
  if (entries.length > EMAIL_LIMITS.metadataMaxKeys) throw DomainError.validation(name, `at most ${EMAIL_LIMITS.metadataMaxKeys} keys`);
  for (const [key, content] of entries) {
    if (!key.length || isLongerThan(key, EMAIL_LIMITS.metadataKeyMaxLength)) {
      throw DomainError.validation(fieldPath(name, key), `keys must be 1 to ${EMAIL_LIMITS.metadataKeyMaxLength} characters`);
    }
    if (isLongerThan(content, EMAIL_LIMITS.metadataValueMaxLength)) {
      throw DomainError.validation(fieldPath(name, key), `must be at most ${EMAIL_LIMITS.metadataValueMaxLength} characters`);
    }
  }
  return Object.fromEntries(entries);
}

/** scheduledAt (and PATCH): ISO 8601, strictly in the future, at most 30 days ahead. */
export function parseScheduledAt(value: string, name: string, now: Date): Date {
  if (!isIsoTimestamp(value)) {
    throw DomainError.validation(name, 'must be an ISO 8601 timestamp such as 2025-01-31T12:00:00Z');
  }
  // Never before the time asked for, which may be finer than the milliseconds a Date holds.
  const at = new Date(millisecondsRoundedUp(value));
  if (at.getTime() <= now.getTime()) throw DomainError.validation(name, 'must be in the future');
  if (at.getTime() > now.getTime() + EMAIL_LIMITS.scheduleMaxDays * DAY_MS) {
    throw DomainError.validation(name, `must be at most ${EMAIL_LIMITS.scheduleMaxDays} days ahead`);
  }
  return at;
}

/**
 * Applies every rule the gateway's DTO cannot: address syntax, header
 * safety, base64 and size, the schedule window. Errors name the field,
 * prefixed for a batch (`emails[3].to[1]`).
 */
export function parseEmailInput(input: EmailSendInput, prefix: string, now: Date): ParsedEmail {
  const [from] = addresses(input.from, field(prefix, 'from'));
  const html = input.html ?? null;
  const text = input.text ?? null;
  if (!html && !text) throw DomainError.validation(field(prefix, 'html'), 'html or text (or both) is required');
  // nodemailer leaves out a header whose value trims to nothing: the message would go without a Subject.
  if (!input.subject.trim()) throw DomainError.validation(field(prefix, 'subject'), 'must not be blank');
  return {
    from,
    to: addresses(input.to, field(prefix, 'to')),
    cc: addresses(input.cc, field(prefix, 'cc')),
    bcc: addresses(input.bcc, field(prefix, 'bcc')),
    replyTo: addresses(input.replyTo, field(prefix, 'replyTo')),
    subject: input.subject,
    html,
    text,
    headers: headers(input.headers, field(prefix, 'headers')),
    attachments: attachments(input.attachments, field(prefix, 'attachments')),
    tags: [...new Set(input.tags ?? [])],
    metadata: metadata(input.metadata, field(prefix, 'metadata')),
    scheduledAt: input.scheduledAt === undefined || input.scheduledAt === null ? null : parseScheduledAt(input.scheduledAt, field(prefix, 'scheduledAt'), now),
    tracking: { opens: input.tracking?.opens ?? null, clicks: input.tracking?.clicks ?? null },
  };
}
