import { LIST_ID_PREFIXES, ListIdPrefix, ULID_PATTERN } from '@mailroom/contracts';
import type { JsonSchema } from './custom-validator-converters';

const CURSORS = new Set(['starting_after', 'ending_before']);

/**
 * The id prefix each list's cursors must carry, as its controller hands it
 * to toListParams: ListQueryDto only knows "some listed id", so its schema
 * alone would let a client send `GET /v1/emails?starting_after=key_…`, which
 * the list refuses. Keyed `METHOD /path`; the e2e test fails on a key that
 * names no operation, and sends every list cursors of every prefix to check
 * that each pattern says what the list accepts.
 */
export const CURSOR_ID_PREFIXES: Record<string, ListIdPrefix> = {
  'GET /v1/api-keys': LIST_ID_PREFIXES.apiKey,
  'GET /v1/domains': LIST_ID_PREFIXES.domain,
  'GET /v1/emails': LIST_ID_PREFIXES.email,
  'GET /v1/webhooks': LIST_ID_PREFIXES.webhook,
  'GET /v1/webhooks/{id}/deliveries': LIST_ID_PREFIXES.webhookDelivery,
};

/** A query parameter's schema, with a cursor of a known list narrowed to that list's ids. */
export function withListCursorPattern(operation: string, parameter: string, schema: JsonSchema): JsonSchema {
  const prefix = CURSOR_ID_PREFIXES[operation];
  if (!prefix || !CURSORS.has(parameter)) return schema;
  return Object.assign({}, schema, { pattern: `^${prefix}${ULID_PATTERN}$` });
}
