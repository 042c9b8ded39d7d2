import { EMAIL_LIMITS } from '@mailroom/contracts';
import type { JsonSchema } from './custom-validator-converters';
import { withFieldSchemas } from './field-schemas';

const MEGABYTE = 1024 * 1024;

const SCHEDULED_AT: JsonSchema = {
  format: 'date-time',
  description: `An ISO 8601 timestamp in the future, at most ${EMAIL_LIMITS.scheduleMaxDays} days ahead (checked against the server's clock when the request arrives).`,
};

/**
 * Limits of the send fields that the emails service checks rather than a
 * gateway validator, so reflection cannot see them (README, Emails →
 * Sending). Keyed by DTO and property, and added to that property's generated
 * schema. The numbers are EMAIL_LIMITS, which the emails service checks
 * against; what JSON Schema cannot state (a future time, reserved header
 * names, the decoded size) stays in the description.
 */
export const SEND_FIELD_LIMITS: Record<string, Record<string, JsonSchema>> = {
  EmailSendDto: {
    headers: {
      maxProperties: EMAIL_LIMITS.headersMax,
      propertyNames: { minLength: 1, maxLength: EMAIL_LIMITS.headerNameMaxLength },
      // Not blank and without CR or LF.
      additionalProperties: { type: 'string', maxLength: EMAIL_LIMITS.headerValueMaxLength, pattern: '^[^\\r\\n]*\\S[^\\r\\n]*$' },
      description:
        'Custom headers, name → value. A header Mailroom sets itself or that receivers add (From, To, Subject, Message-ID, Received, …; see the README) is refused, whatever its case.',
    },
    metadata: {
      maxProperties: EMAIL_LIMITS.metadataMaxKeys,
      propertyNames: { minLength: 1, maxLength: EMAIL_LIMITS.metadataKeyMaxLength },
      additionalProperties: { type: 'string', maxLength: EMAIL_LIMITS.metadataValueMaxLength },
    },
    attachments: { description: `Decoded, the attachments of one email take at most ${EMAIL_LIMITS.attachmentsMaxBytes / MEGABYTE} MB (413 past it).` },
    scheduledAt: SCHEDULED_AT,
  },
  EmailAttachmentDto: { content: { contentEncoding: 'base64' } },
  EmailRescheduleDto: { scheduledAt: SCHEDULED_AT },
};

/** The DTO schemas with SEND_FIELD_LIMITS added (see withFieldSchemas). */
export function withSendFieldLimits(schemas: Record<string, JsonSchema>): Record<string, JsonSchema> {
  return withFieldSchemas(schemas, SEND_FIELD_LIMITS, 'SEND_FIELD_LIMITS');
}
