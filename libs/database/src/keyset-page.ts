import { DataSource, EntityManager, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import type { ListParams } from '@mailroom/contracts';
import { inOneSnapshot } from './one-snapshot';

export interface KeysetPage<E> {
  rows: E[];
  hasMore: boolean;
  totalCount: number;
}

/**
 * Newest-first keyset pagination over a prefixed ULID id column, Stripe style:
 * starting_after pages towards older items, ending_before towards newer ones,
 * and hasMore says whether more items lie further in the paging direction.
 * totalCount counts every item matching the filters, regardless of cursor:
 * with `count` when the caller keeps cheaper counts than a scan, else count(*).
 * The count is read after the page, not beside it: every list reads both in one
 * snapshot, so on one connection, where a second query started beside the first
 * only waited in the driver's queue, a use pg deprecates (its version 9 removes
 * the queue).
 */
export async function keysetPage<E extends ObjectLiteral>(
  query: SelectQueryBuilder<E>,
  idColumn: string,
  params: ListParams,
  count: () => Promise<number> = () => countRows(query),
): Promise<KeysetPage<E>> {
  const page = query.clone();
  if (params.endingBefore) {
    page.andWhere(`${idColumn} > :cursor`, { cursor: params.endingBefore }).orderBy(idColumn, 'ASC');
  } else {
    if (params.startingAfter) page.andWhere(`${idColumn} < :cursor`, { cursor: params.startingAfter });
    page.orderBy(idColumn, 'DESC');
  }
  const rows = await page.take(params.limit + 1).getMany();
  const totalCount = await count();
  const hasMore = rows.length > params.limit;
  const pageRows = rows.slice(0, params.limit);
  return { rows: params.endingBefore ? pageRows.reverse() : pageRows, hasMore, totalCount };
}

async function countRows<E extends ObjectLiteral>(query: SelectQueryBuilder<E>): Promise<number> {
  // A plain count(*) over the filter's index; TypeORM's getCount() adds COUNT(DISTINCT id), which is slower.
  const counted = await query.clone().select('COUNT(*)', 'count').orderBy().getRawOne<{ count: string }>();
  return Number(counted?.count ?? 0);
}

/**
 * keysetPage with the page and its totalCount read in one snapshot (inOneSnapshot), as every list answers:
 * read side by side on the pool, a change committed between the two answered a page that disagreed with its
 * count (0 items beside a totalCount of 20). `build` and `count` run on the snapshot's manager.
 */
export function keysetPageInOneSnapshot<E extends ObjectLiteral>(
  dataSource: DataSource,
  build: (manager: EntityManager) => SelectQueryBuilder<E>,
  idColumn: string,
  params: ListParams,
  count?: (manager: EntityManager) => Promise<number>,
): Promise<KeysetPage<E>> {
  return inOneSnapshot(dataSource, (manager) => keysetPage(build(manager), idColumn, params, count && (() => count(manager))));
}
