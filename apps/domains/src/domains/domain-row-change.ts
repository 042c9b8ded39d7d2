import type { DomainEntity } from '../database/entities/domain.entity';

/**
 * Columns that record the checks themselves: when one ran, when the next is due, how many a pending domain has had.
 * A check that writes only these found what the last one found; `lastCheckedAt` says when it ran, and `updatedAt`
 * keeps saying when the domain itself last changed.
 */
const CHECK_BOOKKEEPING: ReadonlySet<string> = new Set<keyof DomainEntity>(['lastCheckedAt', 'nextCheckAt', 'checkAttempts', 'updatedAt']);

export type DomainRowChange = 'none' | 'bookkeeping' | 'domain';

const sameValue = (a: unknown, b: unknown) => (a instanceof Date && b instanceof Date ? a.getTime() === b.getTime() : a === b);

/** What a change under the row lock did: nothing (nothing to write), only a check's bookkeeping, or the domain itself. */
export function domainRowChange(before: DomainEntity, after: DomainEntity): DomainRowChange {
  const changed = Object.keys(after).filter((column) => !sameValue(before[column as keyof DomainEntity], after[column as keyof DomainEntity]));
  if (changed.length === 0) return 'none';
  return changed.every((column) => CHECK_BOOKKEEPING.has(column)) ? 'bookkeeping' : 'domain';
}
