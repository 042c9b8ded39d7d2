import { Parser } from './parsers';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * No wait or retention needs more, and a far longer one was accepted at boot
 * only to fail at run time: now() minus a billion days is out of Postgres's
 * timestamp range (every outbox and webhook purge failed), and now plus it
 * is an invalid Date (a retry time that cannot be stored).
 */
const LONGEST_DAYS = 36_500;

/** A duration such as 500ms, 5s, 1m, 2h or 1d, in milliseconds. A bare number is not accepted: its unit would be a guess. */
export const asDuration: Parser<number> = (raw) => {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(raw.trim());
  if (!match) throw new Error(`'${raw}' is not a duration (use a number with a unit: 500ms, 5s, 1m, 2h, 1d)`);
  const value = Math.round(Number(match[1]) * UNIT_MS[match[2]]);
  if (value <= 0) throw new Error(`'${raw}' must be longer than 0`);
  if (value > LONGEST_DAYS * UNIT_MS.d) throw new Error(`'${raw}' is longer than 100 years (${LONGEST_DAYS}d)`);
  return value;
};

/** A comma-separated, non-empty list of durations, e.g. '1m,5m,15m,1h'. */
export const asDurationList: Parser<number[]> = (raw) => {
  const parts = raw.split(',').map((part) => part.trim());
  if (!parts.length || parts.some((part) => part === '')) throw new Error(`'${raw}' must be a comma-separated list of durations such as 1m,5m,1h`);
  return parts.map((part, index) => {
    try {
      return asDuration(part);
    } catch (error) {
      throw new Error(`item ${index + 1}: ${(error as Error).message}`);
    }
  });
};

/**
 * How long to keep finished records: `off` (0) keeps them for ever, anything
 * else is a duration of at least a day, so a typo such as 5m cannot delete
 * what was sent a moment ago.
 */
export const asRetentionOrOff: Parser<number> = (raw) => {
  if (raw.trim().toLowerCase() === 'off') return 0;
  const ms = asDuration(raw);
  if (ms < UNIT_MS.d) throw new Error(`'${raw}' is shorter than 1d; use off to keep everything`);
  return ms;
};

/** A duration of at most `longest` (written as a duration too). */
export function asDurationUpTo(longest: string): Parser<number> {
  const maxMs = asDuration(longest);
  return (raw) => {
    const ms = asDuration(raw);
    if (ms > maxMs) throw new Error(`'${raw}' is longer than ${longest}`);
    return ms;
  };
}
