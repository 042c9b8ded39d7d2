import type { ListEnvelope, ListParams } from '../common/list';
import type { RequestContext } from '../common/request-context';
import type { IdempotencyInput } from '../common/idempotency';
import type { EmailStatusValue, RecipientStatusValue } from './email-limits';
import type { EmailSendDto } from './dto/email-send.dto';

/** The request fields of POST /v1/emails, as validated by the gateway. */
export type EmailSendInput = Omit<EmailSendDto, never>;

export interface EmailRecipientResponse {
  /** The bare address as sent to: the local part as written, the domain in lower-case punycode. */
  address: string;
  kind: 'to' | 'cc' | 'bcc';
  status: RecipientStatusValue;
  attempts: number;
  smtpCode: number | null;
  smtpReply: string | null;
  nextAttemptAt: string | null;
  /** Its last EMAIL_LIMITS.attemptLogLength delivery attempts, oldest first. */
  attemptLog: EmailRecipientAttemptResponse[];
}

/** One delivery attempt at one recipient: what the server (or the connection) answered, and what it made of the recipient. */
export interface EmailRecipientAttemptResponse {
  /** 1 for the first attempt at this recipient. */
  attempt: number;
  /** When the attempt's outcome was recorded. */
  at: string;
  /** The recipient's status after it: delivered, sent, deferred (retried at nextAttemptAt), bounced or failed. */
  status: RecipientStatusValue;
  smtpCode: number | null;
  smtpReply: string | null;
  /** The mail server the reply is from: the MX host (or the relay) by name; null when none was tried, and in test mode. */
  host: string | null;
}

export interface EmailAttachmentResponse {
  filename: string;
  contentType: string | null;
  contentId: string | null;
  /** Decoded size in bytes; the content itself is not returned. */
  size: number;
}

/** The full email object (GET /v1/emails/{id}, and the answer to a send). */
export interface EmailResponse {
  id: string;
  object: 'email';
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  replyTo: string[];
  subject: string;
  status: EmailStatusValue;
  html: string | null;
  text: string | null;
  headers: Record<string, string>;
  attachments: EmailAttachmentResponse[];
  tags: string[];
  metadata: Record<string, string>;
  opens: number;
  clicks: number;
  firstOpenedAt: string | null;
  lastOpenedAt: string | null;
  deliveredAt: string | null;
  /** When a recipient first complained (a published email.complained); null when none has. */
  complainedAt: string | null;
  scheduledAt: string | null;
  /** Per-email override; null = the sending domain's default. */
  tracking: { opens: boolean | null; clicks: boolean | null };
  recipients: EmailRecipientResponse[];
  createdAt: string;
}

/** List items carry only what the interface lists. */
export type EmailListItem = Pick<EmailResponse, 'id' | 'object' | 'from' | 'to' | 'subject' | 'status' | 'createdAt'>;
export type EmailList = ListEnvelope<EmailListItem>;

/**
 * The answer to cancel and reschedule for a key without emails:read: what the
 * change is about (the list item's fields and scheduledAt), never the content
 * a key that may only send was not granted to read.
 */
export type EmailScheduleChange = EmailListItem & Pick<EmailResponse, 'scheduledAt'>;

/**
 * Batch answer: one list item per email, in request order. It is the interface's
 * list envelope, since a client reads any `object: "list"` as one: all of it in one page.
 */
export type EmailBatchResponse = EmailList;

export interface EmailListFilters {
  status?: EmailStatusValue;
  /** Lower-case bare address, matched against `to`. */
  to?: string;
  /** Every tag must be present. */
  tags?: string[];
  fromDate?: string;
  toDate?: string;
}

export interface EmailSendPayload {
  ctx: RequestContext;
  input: EmailSendInput;
  idempotency?: IdempotencyInput;
}
export interface EmailBatchPayload {
  ctx: RequestContext;
  inputs: EmailSendInput[];
  idempotency?: IdempotencyInput;
}
export interface EmailByIdPayload {
  ctx: RequestContext;
  id: string;
}
export interface EmailReschedulePayload {
  ctx: RequestContext;
  id: string;
  scheduledAt: string;
}
export interface EmailListPayload {
  ctx: RequestContext;
  params: ListParams;
  filters: EmailListFilters;
}
