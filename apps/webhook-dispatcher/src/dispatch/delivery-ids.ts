import { ulid } from '@mailroom/database';

/**
 * What the deliveries of one fan-out statement share at the start of their
 * ids: whd_ + the first 20 characters of one ULID (its time and 50 random
 * bits), so they sort by time like every other id and a retention purge can
 * bound them by time (firstIdAt).
 */
export function fanOutIdPrefix(): string {
  return `whd_${ulid().slice(0, 20)}`;
}

/**
 * The SQL expression of a fan-out row's id: the statement's prefix (an SQL
 * text expression) + the row's number in the statement, zero-padded to 6
 * digits and never cut. lpad alone also cuts a longer text down to the
 * width: row 1,000,000 became "100000", row 100,000's id, and a fan-out of a
 * million deliveries failed on the primary key every time its events were
 * redelivered. Row numbers are distinct bigints, so their digits are
 * distinct strings and so are the ids, whatever the count: 26 characters
 * after whd_ (a ULID's length) up to 999,999 rows, a digit more past that.
 * The order among one statement's rows means nothing (row_number() OVER ()
 * numbers them as they come), so longer ids sorting among shorter ones is
 * harmless; between statements the prefix's time orders them.
 */
export function fanOutDeliveryIdSql(prefix: string, rowNumber: string): string {
  return `${prefix} || lpad(${rowNumber}::text, greatest(6, length(${rowNumber}::text)), '0')`;
}
