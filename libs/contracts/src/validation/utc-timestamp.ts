import { Transform } from 'class-transformer';

/** A date and time of day with no Z and no ±hh:mm after it. */
const WITHOUT_OFFSET = /^\d{4}-\d{2}-\d{2}[T ]\d{2}(:\d{2}(:\d{2}(\.\d+)?)?)?$/i;

/**
 * A date-time without an offset names no instant, and JavaScript reads it in
 * the server's own time zone: the same request would schedule an email at
 * another moment on a server set to Asia/Kolkata. Mailroom reads it as UTC,
 * as it already reads a bare date. Anything else is left as it is, for the
 * validators to judge.
 */
export function asUtcTimestamp(value: unknown): unknown {
  return typeof value === 'string' && WITHOUT_OFFSET.test(value) ? `${value.replace(' ', 'T')}Z` : value;
}

/** Applies asUtcTimestamp to a DTO field before it is validated (validateDto runs plainToInstance first). */
export function ReadAsUtc(): PropertyDecorator {
  return Transform(({ value }) => asUtcTimestamp(value));
}
