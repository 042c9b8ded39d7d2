/** The digits of an ISO 8601 timestamp's fraction past the millisecond: '0500' in `…20.0200500Z`, '' in `…20.020Z`. */
function digitsPastMilliseconds(timestamp: string): string {
  return /\.\d{3}(\d+)/.exec(timestamp)?.[1] ?? '';
}

/**
 * The instant of an ISO 8601 timestamp in whole milliseconds, rounded up.
 * Date.parse drops the digits past the millisecond (Python's isoformat()
 * writes six), which moves `…20.0205` back to `…20.020`: before the moment
 * the caller named. Mailroom keeps times in milliseconds, and the first one
 * not before `…20.0205` is `…20.021`.
 */
export function millisecondsRoundedUp(timestamp: string): number {
  return Date.parse(timestamp) + (/[1-9]/.test(digitsPastMilliseconds(timestamp)) ? 1 : 0);
}

/**
 * Whether `earlier` is before `later` to every digit written: in whole
 * milliseconds (either rounding) `…00.0005` and `…00.0009` are the same
 * instant, though a range between them is not empty. An offset is whole
 * minutes, so the digits past the millisecond compare as they are.
 */
export function isBeforeToTheDigit(earlier: string, later: string): boolean {
  const [earlierMs, laterMs] = [Date.parse(earlier), Date.parse(later)];
  if (earlierMs !== laterMs) return earlierMs < laterMs;
  const [earlierDigits, laterDigits] = [digitsPastMilliseconds(earlier), digitsPastMilliseconds(later)];
  const width = Math.max(earlierDigits.length, laterDigits.length);
  return earlierDigits.padEnd(width, '0') < laterDigits.padEnd(width, '0');
}
