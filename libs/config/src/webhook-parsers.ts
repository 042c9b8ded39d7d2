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

/** The event stream keeps events 7 days (libs/outbox); a day more, as the analytics projector keeps its applied ids. */
const SHORTEST_DELIVERY_RETENTION_MS = 8 * 86_400_000;

/**
 * How long finished webhook deliveries are kept. A delivery row is also what
 * makes a redelivered stream event a no-op, so it must outlive the stream's
 * copy of the event: at least 8 days.
 */
export const asDeliveryRetention: Parser<number> = (raw) => {
  const ms = asDuration(raw);
  if (ms < SHORTEST_DELIVERY_RETENTION_MS) throw new Error(`'${raw}' is shorter than 8d, the event stream's 7 days plus one: a redelivered event would be sent again`);
  return ms;
};
