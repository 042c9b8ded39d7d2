import { createHash } from 'node:crypto';
import { EMAIL_LIMITS, IdempotencyInput } from '@mailroom/contracts';
import { DomainError } from '@mailroom/errors';

/** JSON with object keys sorted, so `{a,b}` and `{b,a}` are the same request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The Idempotency-Key header plus a hash of the route and canonical body:
 * the emails service replays the first answer for the same hash and answers
 * 409 for another. Undefined when the header is absent.
 */
export function idempotencyFrom(header: string | undefined, route: string, body: unknown): IdempotencyInput | undefined {
  if (header === undefined) return undefined;
  if (!header.length || header.length > EMAIL_LIMITS.idempotencyKeyMaxLength || !/^[\x21-\x7e]+$/.test(header)) {
    throw DomainError.validation(
      'Idempotency-Key',
      `must be 1 to ${EMAIL_LIMITS.idempotencyKeyMaxLength} printable ASCII characters without spaces`,
    );
  }
  const requestHash = createHash('sha256').update(route).update('\n').update(canonicalJson(body)).digest('hex');
  return { key: header, requestHash };
}
