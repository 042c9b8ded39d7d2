import { isFQDN, isISO8601, ValidationOptions, registerDecorator } from 'class-validator';
import { isIP } from 'node:net';

function rule(name: string, test: (value: unknown) => boolean, message: string, options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({ name, target: target.constructor, propertyName, options: { message, ...options }, validator: { validate: test } });
}

export function isIpOrCidr(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const [address, prefix, extra] = value.split('/');
  const family = isIP(address);
  if (!family || extra !== undefined) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

/** A DNS hostname as a sending domain: lower-case letters, digits, hyphens, a TLD, no trailing dot, no IP literal. */
export function isHostname(value: unknown): boolean {
  return (
    typeof value === 'string' &&
    value.length <= 253 &&
    value === value.toLowerCase() &&
    !isIP(value) &&
    isFQDN(value, { require_tld: true, allow_trailing_dot: false, allow_underscores: false, allow_numeric_tld: false })
  );
}

/** A strict ISO 8601 timestamp that JavaScript can also read (validator.js accepts some it cannot). */
export function isIsoTimestamp(value: unknown): value is string {
  return typeof value === 'string' && isISO8601(value, { strict: true }) && !Number.isNaN(Date.parse(value));
}

export function isFutureTimestamp(value: unknown): boolean {
  return isIsoTimestamp(value) && Date.parse(value) > Date.now();
}

/** A strict ISO 8601 timestamp (any time, past or future) that Date reads: week dates (2026-W48-3) and ordinal dates pass ISO 8601 but not Date. */
export const IsIsoTimestamp = (options?: ValidationOptions) =>
  rule('isIsoTimestamp', isIsoTimestamp, 'must be an ISO 8601 timestamp such as 2025-01-31T12:00:00Z', options);

export const IsIpOrCidr = (options?: ValidationOptions) =>
  rule('isIpOrCidr', isIpOrCidr, 'each value must be an IPv4/IPv6 address or CIDR range', options);

export const IsHostname = (options?: ValidationOptions) =>
  rule('isHostname', isHostname, 'each value must be a lower-case hostname such as example.com', options);

export const IsFutureTimestamp = (options?: ValidationOptions) =>
  rule('isFutureTimestamp', isFutureTimestamp, 'must be an ISO 8601 timestamp in the future', options);
