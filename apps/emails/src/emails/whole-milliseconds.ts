/**
 * The instant of an ISO 8601 timestamp in whole milliseconds, rounded up.
 * Date.parse drops the digits past the millisecond (Python's isoformat()
 * writes six), which moves `…20.0205` back to `…20.020`: before the moment
 * the caller named. Mailroom keeps times in milliseconds, and the first one
 * not before `…20.0205` is `…20.021`.
 */
export function millisecondsRoundedUp(timestamp: string): number {
  const beyondMilliseconds = /\.\d{3}(\d+)/.exec(timestamp)?.[1] ?? '';
  return Date.parse(timestamp) + (/[1-9]/.test(beyondMilliseconds) ? 1 : 0);
}
