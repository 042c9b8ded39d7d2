import type { DomainStatus } from '@mailroom/contracts';
import type { CheckTrigger } from './domain-transitions';

/** What a check remembers of the row it read before its lookups, and what it finds on the locked row after them. */
export interface CheckedRow {
  status: DomainStatus;
  lastCheckedAt: Date | null;
}

/**
 * Whether another check, applied while this one's lookups ran, makes this one's answers not count. Checks that
 * overlap count as one. A background check is dropped whenever another was applied (a verify's answers are newer).
 * A verify is dropped when the other moved the status: it decided on a state that is gone, and applied on the new
 * one it would count as a second verify, e.g. make the domain that the first verify failed pending again. A verify
 * overlapping a check that left the status as it was (a DNS failure, the same result) still applies.
 */
export function isOvertaken(read: CheckedRow, current: CheckedRow, trigger: CheckTrigger): boolean {
  if (current.lastCheckedAt?.getTime() === read.lastCheckedAt?.getTime()) return false;
  return trigger === 'background' || current.status !== read.status;
}
