import type { EmailListFilters } from '@mailroom/contracts';

/** Past 9999-12-31 an ISO string reads +010000-…, which Postgres cannot; no email is created that late, so precision there changes nothing. */
const YEAR_10000_MS = Date.UTC(10000, 0, 1);

/**
 * A from_date or to_date in whole milliseconds, the precision createdAt is
 * kept in. Date.parse drops the digits past the millisecond (Python's
 * isoformat() writes six) while Postgres compares them, so the page and
 * totalCount disagreed about an email created in that very millisecond.
 * Rounding up selects what the caller asked for: an email created at
 * …20.020 is before …20.0205, as it is before …20.021.
 */
export function toWholeMilliseconds(timestamp: string): string {
  const beyondMilliseconds = /\.\d{3}(\d+)/.exec(timestamp)?.[1] ?? '';
  if (!/[1-9]/.test(beyondMilliseconds)) return timestamp;
  const roundedUp = Date.parse(timestamp) + 1;
  return roundedUp < YEAR_10000_MS ? new Date(roundedUp).toISOString() : timestamp;
}

/** The list filters with their date bounds as the page query and the count both read them. */
export function withWholeMillisecondDates(filters: EmailListFilters): EmailListFilters {
  if (filters.fromDate === undefined && filters.toDate === undefined) return filters;
  return Object.assign({}, filters, {
    fromDate: filters.fromDate === undefined ? undefined : toWholeMilliseconds(filters.fromDate),
    toDate: filters.toDate === undefined ? undefined : toWholeMilliseconds(filters.toDate),
  });
}
