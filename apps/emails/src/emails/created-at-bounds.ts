import type { EmailListFilters } from '@mailroom/contracts';
import { millisecondsRoundedUp } from '@mailroom/contracts';

/** Past 9999-12-31 an ISO string reads +010000-…, which Postgres cannot read; no email is created that late. */
export const YEAR_10000_MS = Date.UTC(10000, 0, 1);

/** Before year 0001 in UTC (0001-01-01T00:00:00+14:00 is in year 0000) an ISO string reads 0000-…, which Postgres cannot read either. (Date.UTC reads years 0–99 as 1900–1999.) */
const YEAR_1_MS = new Date(0).setUTCFullYear(1, 0, 1);

/**
 * A from_date or to_date as one instant that the page query (Postgres) and
 * the count (JavaScript) read alike:
 * - in UTC: a bare date (2026-11-26) is a UTC day to JavaScript, as the
 *   README promises, but Postgres reads it in its session's TimeZone, which
 *   a server set up with its machine's zone has as Europe/Berlin, say;
 * - in whole milliseconds, the precision createdAt is kept in, rounded up:
 *   Postgres compared the digits past them, which the count dropped, and an
 *   email created at …20.020 is before …20.0205, as it is before …20.021.
 */
export function createdAtBound(timestamp: string): string {
  const ms = millisecondsRoundedUp(timestamp);
  // Such a bound is kept as written.
  if (ms >= YEAR_10000_MS) return timestamp;
  // No email is created before 1970, so an earlier bound bounds alike; Postgres answered 500 to it.
  return new Date(Math.max(ms, YEAR_1_MS)).toISOString();
}

/** The list filters with their date bounds as both the page query and the count read them. */
export function withCreatedAtBounds(filters: EmailListFilters): EmailListFilters {
  if (filters.fromDate === undefined && filters.toDate === undefined) return filters;
  return Object.assign({}, filters, {
    fromDate: filters.fromDate === undefined ? undefined : createdAtBound(filters.fromDate),
    toDate: filters.toDate === undefined ? undefined : createdAtBound(filters.toDate),
  });
}
