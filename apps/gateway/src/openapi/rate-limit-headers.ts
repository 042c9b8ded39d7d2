import type { JsonSchema } from './custom-validator-converters';

const RATE_LIMIT_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];

/** References to the named components/headers, as a response's `headers`. */
const headerRefs = (names: string[]): Record<string, JsonSchema> => Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));

/**
 * The headers of an answer given after the key's token was taken (enforceRateLimit): every answer of an
 * operation that needs a key but 401 and 403, which are settled before it. A 429 adds Retry-After (a 429 for
 * failed authentications from the client address comes before the key is read, with Retry-After alone; headers
 * are optional in OpenAPI, so one list says both).
 */
export function rateLimitHeadersOf(permission: string | null, status: number): Record<string, JsonSchema> | undefined {
  if (permission === null || status === 401 || status === 403) return undefined;
  return headerRefs(status === 429 ? [...RATE_LIMIT_HEADERS, 'Retry-After'] : RATE_LIMIT_HEADERS);
}
