import { isFQDN, isISO8601, registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';
import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { isMappedWithIpv4Prefix } from './mapped-ipv4-prefix';
import { isBeforeToTheDigit } from './whole-milliseconds';
import { PLUS_READ_AS_SPACE_HINT } from './plus-read-as-space';

/**
 * A rule about a string value. A value of another type fails it too, and is
 * told its type (README, Errors: `expiresAt: must be a string`, not "must be
 * an ISO 8601 timestamp in the future"). `problem` ("must be …") says what is
 * wrong with a string that breaks the rule; with `each` both apply to every
 * element and the message says so ("each value must be …").
 */
export function stringRule(name: string, test: (value: unknown) => boolean, problem: string | ((value: unknown) => string), options?: ValidationOptions) {
  const each = options?.each === true;
  const message = ({ value }: ValidationArguments): string => {
    const values: unknown[] = each && Array.isArray(value) ? value : [value];
    const complaint = values.every((item) => typeof item === 'string') ? (typeof problem === 'string' ? problem : problem(value)) : 'must be a string';
    return each ? `each value ${complaint}` : complaint;
  };
  return (target: object, propertyName: string) =>
    registerDecorator({ name, target: target.constructor, propertyName, options: { message, ...options }, validator: { validate: test } });
}

export function isIpOrCidr(value: unknown): boolean {
  if (typeof value !== 'string' || hasZoneId(value)) return false;
  const [address, prefix, extra] = value.split('/');
  const family = isIP(address);
  if (!family || extra !== undefined) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128) && !isMappedWithIpv4Prefix(value);
}

/**
 * `fe80::1%eth0`: Node's isIP accepts a zone id, but it names an interface of
 * the host that wrote it, and a remote client's address never carries one, so
 * as a restriction it was silently ignored (the key admitted fe80::1 from any
 * interface). Refused, so what is stored is what is matched.
 */
function hasZoneId(value: string): boolean {
  return value.includes('%');
}

/**
 * A DNS hostname as a sending domain: letters, digits, hyphens, a TLD, no trailing dot, no IP literal; in any case,
 * since DNS names are (what is stored is lower-case). Its punycode form must exist: `xn--zz.com` looks like a
 * hostname but decodes to nothing, and was stored as ''.
 */
export function isHostname(value: unknown): boolean {
  return (
    typeof value === 'string' &&
    value.length <= 253 &&
    !isIP(value) &&
    isFQDN(value, { require_tld: true, allow_trailing_dot: false, allow_underscores: false, allow_numeric_tld: false }) &&
    domainToASCII(value.toLowerCase()) !== ''
  );
}

/**
 * Whether the calendar date a timestamp starts with lies in years 0001 to 9999
 * and, when it names a day, is a real one (no 2026-02-30). Year 0000 is no year
 * Postgres reads: `from_date=0000` answered 500. validator.js's strict mode
 * checked the day by rebuilding the date with `new Date('1-01-01')`, which
 * reads years 0001 to 0099 as 2001 to 2099 and earlier years than 1000 in the
 * server's time zone, so it refused Go's and .NET's zero time,
 * 0001-01-01T00:00:00Z, a common "since ever" bound; and it let a year without
 * a day (0000, 0000-01) through. Anything but a calendar date is left to the other checks.
 */
function isRealCalendarDate(value: string): boolean {
  const match = /^(\d{4})(?:-?(\d{2})(?:-?(\d{2}))?)?/.exec(value);
  if (!match) return true;
  const [year, month, day] = match.slice(1).map((part) => (part === undefined ? 1 : Number(part)));
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return year >= 1 && date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/**
 * An offset's `+` sent unencoded in a query string arrives as a space
 * (`2026-01-01T00:00:00 02:00`): the message says so, since the timestamp
 * the caller wrote looks right to them.
 */
export function isoTimestampProblem(value: unknown): string {
  const offsetReadAsSpace = typeof value === 'string' && / \d{2}(?::?\d{2})?$/.test(value) ? value.replace(/ (?=\d{2}(?::?\d{2})?$)/, '+') : null;
  return `must be an ISO 8601 timestamp such as 2025-01-31T12:00:00Z${offsetReadAsSpace && isIsoTimestamp(offsetReadAsSpace) ? PLUS_READ_AS_SPACE_HINT : ''}`;
}

/** A strict ISO 8601 timestamp that JavaScript can also read (validator.js accepts some it cannot). */
export function isIsoTimestamp(value: unknown): value is string {
  return typeof value === 'string' && isISO8601(value) && isRealCalendarDate(value) && !Number.isNaN(Date.parse(value));
}

export function isFutureTimestamp(value: unknown): boolean {
  return isIsoTimestamp(value) && Date.parse(value) > Date.now();
}

/** A strict ISO 8601 timestamp (any time, past or future) that Date reads: week dates (2026-W48-3) and ordinal dates pass ISO 8601 but not Date. */
export const IsIsoTimestamp = (options?: ValidationOptions) =>
  stringRule('isIsoTimestamp', isIsoTimestamp, isoTimestampProblem, options);

/**
 * An earlier time than the field `later` of the same object. A range that ends
 * where or before it starts holds nothing, and a list filtered by one answered
 * an empty page with 200, as if there were nothing to find; analytics already
 * refused it. Passes when either side is no timestamp: their own rules say so.
 */
export const IsBeforeTimestampIn = (later: string) => (target: object, propertyName: string) =>
  registerDecorator({
    name: 'isBeforeTimestampIn',
    target: target.constructor,
    propertyName,
    constraints: [later],
    options: { message: `must be before ${later}` },
    validator: {
      validate: (value: unknown, { object }: ValidationArguments) => {
        const end = (object as Record<string, unknown>)[later];
        // To the digit, as analytics compares: …20.020 to …20.0205 holds the emails of …20.020, though Date.parse reads both as one instant.
        return !isIsoTimestamp(value) || !isIsoTimestamp(end) || isBeforeToTheDigit(value, end);
      },
    },
  });

const IP_OR_CIDR_PROBLEM = 'must be an IPv4/IPv6 address or CIDR range';

export const IsIpOrCidr = (options?: ValidationOptions) =>
  stringRule(
    'isIpOrCidr',
    isIpOrCidr,
    (value) => {
      const strings = [value].flat().filter((item): item is string => typeof item === 'string');
      if (strings.some(isMappedWithIpv4Prefix)) return `${IP_OR_CIDR_PROBLEM}; the prefix of an IPv4-mapped address counts IPv6 bits (::ffff:10.0.0.0/104 is 10.0.0.0/8)`;
      if (strings.some(hasZoneId)) return `${IP_OR_CIDR_PROBLEM}; a zone id (%eth0) names an interface of one host, not a client address`;
      return IP_OR_CIDR_PROBLEM;
    },
    options,
  );

export const IsFutureTimestamp = (options?: ValidationOptions) =>
  stringRule('isFutureTimestamp', isFutureTimestamp, 'must be an ISO 8601 timestamp in the future', options);

/**
 * One character that shows: not white space, a control or a format character
 * (zero-width space, joiners, direction marks, soft hyphen), nor one of the
 * fillers fonts draw as nothing (Hangul fillers, the Braille blank). A
 * pattern source (Unicode mode) so the API document states the same rule.
 */
export const VISIBLE_CHARACTER_PATTERN = '[^\\s\\p{Cc}\\p{Cf}\\p{Z}\\u115F\\u1160\\u3164\\uFFA0\\u2800]';
const VISIBLE_CHARACTER = new RegExp(VISIBLE_CHARACTER_PATTERN, 'u');

/**
 * Holds a character that shows. An empty string passes, so that the length
 * rule beside it says "must not be empty"; a name of three spaces, or of
 * zero-width spaces, lists as a blank line that no one can tell from another.
 */
export const IsNotBlank = (options?: ValidationOptions) =>
  stringRule(
    'isNotBlank',
    (value) => typeof value === 'string' && (value === '' || VISIBLE_CHARACTER.test(value)),
    'must not be blank (white space or invisible characters only)',
    options,
  );
