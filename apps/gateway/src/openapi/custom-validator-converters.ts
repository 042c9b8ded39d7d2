import { ValidationTypes } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { VISIBLE_CHARACTER_PATTERN } from '@mailroom/contracts';

export type JsonSchema = Record<string, unknown>;

/**
 * JSON Schemas for Mailroom's own class-validator rules. class-validator-jsonschema
 * knows the built-in decorators; a rule made with registerDecorator is keyed by its
 * `name`, and without a converter it would say nothing about the field.
 */
export const CUSTOM_VALIDATOR_SCHEMAS: Record<string, JsonSchema> = {
  // libs/contracts/src/validation/validators.ts
  isHostname: {
    type: 'string',
    maxLength: 253,
    description: 'A DNS hostname with a TLD, no trailing dot and no IP literal, e.g. example.com; any case and IDN are accepted and stored as lower-case punycode.',
  },
  isIpOrCidr: {
    type: 'string',
    anyOf: [
      { format: 'ipv4' },
      { format: 'ipv6' },
      { pattern: '^[0-9.]+/(3[0-2]|[12]?[0-9])$' },
      { pattern: '^[0-9A-Fa-f:.]+/(12[0-8]|1[01][0-9]|[1-9]?[0-9])$' },
    ],
    description: 'An IPv4/IPv6 address or CIDR range, e.g. 203.0.113.0/24. An IPv4-mapped range (or any IPv6 one written with a dotted IPv4 part) counts its prefix in IPv6 bits, so it takes /96 or more (::ffff:203.0.113.0/120). A zone id (fe80::1%eth0) is refused.',
  },
  isFutureTimestamp: { type: 'string', format: 'date-time', description: 'An ISO 8601 timestamp in the future.' },
  isNotBlank: { type: 'string', pattern: `^$|${VISIBLE_CHARACTER_PATTERN}`, description: 'Not white space or invisible characters (zero-width, control, format) only.' },
  // libs/contracts/src/domains/dto/domain-create.dto.ts
  isDomainName: {
    type: 'string',
    maxLength: 233,
    description:
      'A domain name such as example.com; any case and IDN are accepted and stored as lower-case punycode, at most 233 characters in that form (so that its DKIM record name mr…._domainkey.<name> fits in 253).',
  },
  // libs/contracts/src/domains/dto/domain-update.dto.ts
  isTrackingDomain: {
    type: ['string', 'null'],
    maxLength: 253,
    description:
      'A domain name such as links.example.com (any case and IDN accepted, stored as lower-case punycode), or null or the host of TRACKING_BASE_URL itself (which may be localhost or an IP address) to go back to that host.',
  },
  // libs/contracts/src/emails/dto/email-validators.ts
  isFlatStringMap: { type: 'object', additionalProperties: { type: 'string' } },
  isIsoTimestamp: { type: 'string', format: 'date-time', description: 'An ISO 8601 timestamp such as 2025-01-31T12:00:00Z.' },
};

/** Rules whose schema depends on the arguments a DTO gave them, which registerDecorator keeps as constraints. */
const CONSTRAINED_VALIDATOR_SCHEMAS: Record<string, (constraints: unknown[]) => JsonSchema> = {
  // libs/contracts/src/emails/dto/email-validators.ts: to, cc, bcc, replyTo.
  isStringOrStringArray: ([min, max]) => {
    const array: JsonSchema = { type: 'array', items: { type: 'string' } };
    if (typeof min === 'number' && min > 0) array.minItems = min;
    if (typeof max === 'number') array.maxItems = max;
    return { oneOf: [{ type: 'string' }, array] };
  },
};

const PRIMITIVE_SCHEMAS = new Map<unknown, JsonSchema>([
  [String, { type: 'string' }],
  [Number, { type: 'number' }],
  [Boolean, { type: 'boolean' }],
  [Array, { type: 'array' }],
]);

function messageOf(meta: ValidationMetadata): string | undefined {
  return typeof meta.message === 'string' ? meta.message : undefined;
}

/**
 * Converters keyed as class-validator-jsonschema expects. Known rules get their
 * schema plus the rule's message as description (the message is what a caller
 * reads in a 422, so the reference says the same thing). An unknown custom rule
 * falls back to the property's declared type, never to a `$ref` to `Object`.
 */
export function customValidatorConverters(): Record<string, (meta: ValidationMetadata) => JsonSchema> {
  const converters: Record<string, (meta: ValidationMetadata) => JsonSchema> = {};
  for (const [name, schema] of Object.entries(CUSTOM_VALIDATOR_SCHEMAS)) {
    converters[name] = (meta) => {
      const message = messageOf(meta);
      return message && !schema.description ? { ...schema, description: message } : { ...schema };
    };
  }
  for (const [name, schemaOf] of Object.entries(CONSTRAINED_VALIDATOR_SCHEMAS)) {
    converters[name] = (meta) => {
      const schema = schemaOf(meta.constraints ?? []);
      const message = messageOf(meta);
      if (message) schema.description = message;
      return schema;
    };
  }
  converters[ValidationTypes.CUSTOM_VALIDATION] = (meta) => {
    const declared = typeof meta.target === 'function' ? Reflect.getMetadata('design:type', meta.target.prototype, meta.propertyName) : undefined;
    const message = messageOf(meta);
    return { ...(PRIMITIVE_SCHEMAS.get(declared) ?? {}), ...(message ? { description: message } : {}) };
  };
  return converters;
}
