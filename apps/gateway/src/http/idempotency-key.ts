import { createHash } from 'node:crypto';
import { IDEMPOTENCY_KEY_PATTERN, IDEMPOTENCY_LIMITS, IdempotencyInput } from '@mailroom/contracts';
import { DomainError } from '@mailroom/errors';

/**
 * JSON with object keys sorted, so `{a,b}` and `{b,a}` are the same request,
 * and without the fields sent as null, which a send takes as not given: a
 * client that writes its unset fields as null is making the same request as
 * one that leaves them out.
 */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const fields = value as Record<string, unknown>;
    const entries = Object.keys(fields)
      .sort()
      .filter((key) => fields[key] !== undefined && fields[key] !== null)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(fields[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The Idempotency-Key header plus a hash of the route and canonical body, for
 * every route that takes the header (the sends, webhook creation): the
 * service behind it replays the first answer for the same hash and answers
 * 409 for another. Undefined when the header is absent.
 */
export function idempotencyFrom(header: string | undefined, route: string, body: unknown): IdempotencyInput | undefined {
  if (header === undefined) return undefined;
  if (!header.length || header.length > IDEMPOTENCY_LIMITS.keyMaxLength || !IDEMPOTENCY_KEY_PATTERN.test(header)) {
    throw DomainError.validation(
      'Idempotency-Key',
      `must be 1 to ${IDEMPOTENCY_LIMITS.keyMaxLength} printable ASCII characters without spaces`,
    );
  }
  const requestHash = createHash('sha256').update(route).update('\n').update(canonicalJson(body)).digest('hex');
  return { key: header, requestHash };
}
