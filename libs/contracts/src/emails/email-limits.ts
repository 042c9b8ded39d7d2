/** Documented limits of the sending API (README, "Emails"). */
export const EMAIL_LIMITS = {
  toMax: 50,
  ccMax: 50,
  bccMax: 50,
  replyToMax: 10,
  subjectMaxLength: 998,
  headersMax: 50,
  /** Far above any real header's; a name cannot be folded, and a line may hold only 998 characters (RFC 5322 §2.1.1). */
  headerNameMaxLength: 128,
  headerValueMaxLength: 998,
  attachmentsMax: 100,
  /** Sum of the decoded attachment sizes. The HTTP body limit (BODY_LIMIT_BYTES) and NATS max_payload also apply. */
  attachmentsMaxBytes: 10 * 1024 * 1024,
  tagsMax: 20,
  tagMaxLength: 256,
  metadataMaxKeys: 50,
  metadataKeyMaxLength: 256,
  metadataValueMaxLength: 2048,
  scheduleMaxDays: 30,
  batchMax: 100,
  /** How much of an SMTP server's reply a recipient keeps (smtpReply, and the events' smtp.reply). */
  smtpReplyMaxLength: 1000,
  /**
   * How many of its attempts a recipient keeps in its attemptLog, the latest: every attempt of the default retry
   * schedule (the first and nine retries). Bounded because GET /v1/emails/{id} answers the logs of up to 150
   * recipients in one NATS message (max_payload, 1 MB by default) beside the bodies.
   */
  attemptLogLength: 10,
} as const;

export const EMAIL_STATUSES = ['queued', 'sent', 'delivered', 'bounced', 'failed', 'scheduled', 'cancelled', 'suppressed'] as const;
export type EmailStatusValue = (typeof EMAIL_STATUSES)[number];

/** A recipient's own state: 'deferred' waits for a retry; 'cancelled' belonged to a scheduled email that was cancelled. */
export const RECIPIENT_STATUSES = ['queued', 'deferred', 'sent', 'delivered', 'bounced', 'failed', 'suppressed', 'cancelled'] as const;
export type RecipientStatusValue = (typeof RECIPIENT_STATUSES)[number];

export const SUPPRESSION_REASONS = ['bounce', 'complaint', 'manual', 'unsubscribe'] as const;
export type SuppressionReasonValue = (typeof SUPPRESSION_REASONS)[number];

export const TAG_PATTERN = /^[A-Za-z0-9_-]+$/;

const SET_BY_MAILROOM = 'is set by Mailroom and cannot be overridden';
const ADDED_BY_RECEIVERS = 'is added by the servers that receive the message; one the sender writes would be forged';

/**
 * Header names a custom header may not use (compared case-insensitively), and
 * why: headers the service sets itself or that would contradict a request
 * field; Return-Path, which the receiver writes from the envelope sender
 * Mailroom chooses; Sender, which mail clients show as "on behalf of" a
 * mailbox nobody verified (DMARC checks only From); Content-Disposition, which
 * on the top level makes the whole message an attachment; and the trace and
 * authentication results receivers add (Received, Authentication-Results,
 * ARC), where a sender's copy could only mislead the reader or a filter.
 */
export const RESERVED_HEADERS: ReadonlyMap<string, string> = new Map([
  ...['from', 'to', 'cc', 'bcc', 'reply-to', 'subject', 'message-id', 'date', 'dkim-signature'].map((name) => [name, SET_BY_MAILROOM] as const),
  ...['mime-version', 'content-type', 'content-transfer-encoding', 'content-disposition', 'return-path'].map((name) => [name, SET_BY_MAILROOM] as const),
  ['sender', 'would show another sender than from (mail clients write "on behalf of"); put the address in from'],
  ...['received', 'received-spf', 'authentication-results', 'arc-seal', 'arc-message-signature', 'arc-authentication-results'].map((name) => [name, ADDED_BY_RECEIVERS] as const),
]);
