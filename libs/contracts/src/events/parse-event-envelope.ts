import { findUnstorableInput } from '../validation/find-unstorable-input';
import type { EventEnvelope } from './event-envelope';
import { asUtcTimestamp } from '../validation/utc-timestamp';
import { isIsoTimestamp } from '../validation/validators';
import { isPlainObject } from '../validation/is-plain-object';

/** Far longer than evt_<ULID>, short enough for a btree key and a Nats-Msg-Id. */
const MAX_ID_LENGTH = 200;
/**
 * Printable ASCII without spaces: the id goes out as the service-event-id and
 * webhook-id headers, and one Node cannot put in a header would fail every
 * delivery of the event instead of being refused here.
 */
const ID_PATTERN = new RegExp(`^[\\x21-\\x7e]{1,${MAX_ID_LENGTH}}$`);
const MAX_TYPE_LENGTH = 100;

export type ParsedEnvelope = { envelope: EventEnvelope } | { problem: string };

/**
 * Reads an event off the stream, which internal services publish onto too,
 * and says what is wrong with one no consumer could ever apply: not JSON, not
 * the envelope's shape, a createdAt that is no time, data nested deeper than
 * any walk over it can go, or a character Postgres cannot store.
 * Consumers drop such an event instead of redelivering it forever, and one
 * bad event never fails a batch of good ones. A missing mode means live, as
 * the README's schema lets a publisher leave it out.
 */
export function parseEventEnvelope(json: string): ParsedEnvelope {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return { problem: 'not JSON' };
  }
  if (!isPlainObject(value)) return { problem: 'not a JSON object' };
  const { id, type, createdAt, mode = 'live', data } = value;
  if (typeof id !== 'string' || !ID_PATTERN.test(id)) return { problem: `id: must be a string of 1 to ${MAX_ID_LENGTH} printable ASCII characters without spaces` };
  if (typeof type !== 'string' || !type || type.length > MAX_TYPE_LENGTH) return { problem: `type: must be a string of 1 to ${MAX_TYPE_LENGTH} characters` };
  if (mode !== 'live' && mode !== 'test') return { problem: 'mode: must be live or test' };
  const at = asUtcTimestamp(createdAt);
  if (!isIsoTimestamp(at) || !withinPostgresRange(at)) return { problem: 'createdAt: must be an ISO 8601 timestamp' };
  if (!isPlainObject(data)) return { problem: 'data: must be an object' };
  const unstorable = findUnstorableInput(value);
  if (unstorable !== null) return { problem: unstorable };
  return { envelope: { id, type, createdAt: at, mode, data } };
}

/** Years 1970 to 9999: what Date and Postgres both read the same way. */
function withinPostgresRange(value: string): boolean {
  const time = Date.parse(value);
  return time >= 0 && time < Date.UTC(10000, 0, 1);
}
