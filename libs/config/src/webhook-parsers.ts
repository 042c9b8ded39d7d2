import { asDuration } from './durations';
import { Parser } from './parsers';

/**
 * A webhook retry schedule: the delay before each attempt, the first usually
 * `0s` (at once). Unlike asDurationList, zero is allowed, because "attempt
 * immediately" is the point of the first entry. Capped at 50 attempts so a
 * typo cannot make an endpoint be retried forever.
 */
export const asRetrySchedule: Parser<number[]> = (raw) => {
  const parts = raw.split(',').map((part) => part.trim());
  if (!parts.length || parts.some((part) => part === '')) throw new Error(`'${raw}' must be a comma-separated list of durations such as 0s,5s,5m`);
  if (parts.length > 50) throw new Error(`has ${parts.length} entries; at most 50 attempts are allowed`);
  return parts.map((part, index) => {
    if (/^0+(?:\.0+)?(ms|s|m|h|d)$/.test(part)) return 0;
    try {
      return asDuration(part);
    } catch (error) {
      throw new Error(`item ${index + 1}: ${(error as Error).message}`);
    }
  });
};
