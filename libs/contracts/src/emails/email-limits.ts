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
  idempotencyKeyMaxLength: 256,
  /** How much of an SMTP server's reply a recipient keeps (smtpReply, and the events' smtp.reply). */
  smtpReplyMaxLength: 1000,
  /** How long an Idempotency-Key replays its first answer. */
  idempotencyWindowHours: 24,
} as const;

export const EMAIL_STATUSES = ['queued', 'sent', 'delivered', 'bounced', 'failed', 'scheduled', 'cancelled', 'suppressed'] as const;
export type EmailStatusValue = (typeof EMAIL_STATUSES)[number];

/** A recipient's own state: 'deferred' waits for a retry; 'cancelled' belonged to a scheduled email that was cancelled. */
export const RECIPIENT_STATUSES = ['queued', 'deferred', 'sent', 'delivered', 'bounced', 'failed', 'suppressed', 'cancelled'] as const;
export type RecipientStatusValue = (typeof RECIPIENT_STATUSES)[number];

export const SUPPRESSION_REASONS = ['bounce', 'complaint', 'manual', 'unsubscribe'] as const;
export type SuppressionReasonValue = (typeof SUPPRESSION_REASONS)[number];

export const TAG_PATTERN = /^[A-Za-z0-9_-]+$/;

/**
 * Headers the service sets itself or that would contradict a request field;
 * a custom header may not override them (compared case-insensitively).
 */
export const RESERVED_HEADERS = [
  'from',
  'to',
  'cc',
  'bcc',
  'reply-to',
  'subject',
  'message-id',
  'date',
  'dkim-signature',
  'mime-version',
  'content-type',
  'content-transfer-encoding',
] as const;
