import { isPlainObject } from '../validation/is-plain-object';
import { parseJsonBytes } from '../validation/parse-json-bytes';

/** What a gateway replica broadcasts: how many requests of each key it let through since its last report. */
export interface ConsumptionReport {
  replica: string;
  counts: Record<string, number>;
}

export function encodeConsumptionReport(report: ConsumptionReport): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(report));
}

/**
 * The report in a message, or null when it is not one. Anything on NATS can
 * publish on the subject: a message that is not JSON threw inside nats.js's
 * callback and closed the connection's reader, which ended the sharing of
 * limits for good; a count that is not a number made a bucket NaN, and that
 * key was refused (429) until the process restarted. Counts that are not
 * positive finite numbers are dropped, the rest of the report is kept.
 */
export function decodeConsumptionReport(data: Uint8Array): ConsumptionReport | null {
  const parsed = parseJsonBytes(data);
  if (!isPlainObject(parsed) || typeof parsed.replica !== 'string' || !isPlainObject(parsed.counts)) return null;
  const counts: Record<string, number> = {};
  for (const [keyId, count] of Object.entries(parsed.counts)) {
    if (typeof count === 'number' && Number.isFinite(count) && count > 0) counts[keyId] = count;
  }
  return { replica: parsed.replica, counts };
}
