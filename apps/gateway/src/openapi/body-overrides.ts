import { DomainUpdateDto, EMAIL_LIMITS, EmailBatchDto, EmailSendDto } from '@mailroom/contracts';
import type { JsonSchema } from './custom-validator-converters';
import { schemaRef } from './dto-schemas';

export interface BodyOverride {
  /** The DTO classes the schema references (so their schemas land in components). */
  dtos: Function[];
  schema: JsonSchema;
}

/**
 * Request bodies that reflection cannot see: a handler that takes `@Body() body: unknown`
 * and validates it itself, or a rule about the body as a whole that no field decorator states. Keyed `METHOD /path`; the e2e test fails on a key that
 * names no route, and on a body route with neither a DTO nor an entry here.
 */
export const BODY_OVERRIDES: Record<string, BodyOverride> = {
  // Resend takes a bare array; `{ "emails": [...] }` is the same request.
  'POST /v1/emails/batch': {
    dtos: [EmailBatchDto, EmailSendDto],
    schema: {
      oneOf: [
        schemaRef(EmailBatchDto.name),
        { type: 'array', minItems: 1, maxItems: EMAIL_LIMITS.batchMax, items: schemaRef(EmailSendDto.name) },
      ],
    },
  },
  // What null does to trackingDomain, which no field decorator states.
  'PATCH /v1/domains/{id}': {
    dtos: [DomainUpdateDto],
    schema: {
      allOf: [schemaRef(DomainUpdateDto.name)],
      description:
        'Every field is optional; `{}` changes nothing. trackingDomain: null (or the default tracking host as GET shows it, even localhost or an IP address) goes back to the host of TRACKING_BASE_URL.',
    },
  },
};
