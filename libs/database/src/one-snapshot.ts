import type { DataSource, EntityManager } from 'typeorm';

/**
 * Runs reads that must agree with each other in one snapshot: an email and
 * its recipients, a webhook delivery and its attempt log, a page and its
 * count. Under Postgres's default READ COMMITTED each statement sees what was
 * committed before it began, so a row read first and its children read next
 * can straddle a commit (an email still `queued` beside a recipient already
 * `delivered`). REPEATABLE READ gives every statement of the transaction the
 * snapshot of its first; reads alone never fail to serialize under it.
 */
export function inOneSnapshot<T>(dataSource: DataSource, read: (manager: EntityManager) => Promise<T>): Promise<T> {
  return dataSource.transaction('REPEATABLE READ', read);
}
