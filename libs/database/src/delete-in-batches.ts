import { DataSource } from 'typeorm';

/** What a batched purge deletes: see deleteInBatches. */
export interface BatchedDelete {
  table: string;
  key: string;
  orderBy?: string;
  where: string;
  parameters: unknown[];
  batchSize?: number;
}

const DEFAULT_BATCH_SIZE = 5000;

/** The statement each batch of deleteInBatches runs (with `purge.parameters`), for a test to read its plan. */
export function batchDeleteStatement({ table, key, orderBy = key, where, batchSize = DEFAULT_BATCH_SIZE }: BatchedDelete): string {
  return `DELETE FROM ${table} WHERE (${key}) IN (SELECT ${key} FROM ${table} WHERE ${where} ORDER BY ${orderBy} LIMIT ${batchSize} FOR UPDATE)`;
}

/**
 * Deletes the rows of `table` that match `where`, at most `batchSize` per
 * statement, lowest `orderBy` first (the key unless given: an indexed column
 * that follows age keeps each statement's scan to the rows it deletes),
 * until none are left: a retention purge that never holds locks or WAL for
 * long in one statement. `key` is the primary key's column, or its columns
 * joined by commas. Answers how many rows went.
 *
 * The batch is chosen FOR UPDATE: a row another transaction changed while the
 * purge waited for it is read again and kept when it no longer matches (a
 * finished webhook delivery retried by hand is due again). Without the lock
 * only `key IN (...)` is checked again, against ids chosen from the
 * purge's older snapshot, and the row went whatever it had become.
 */
export async function deleteInBatches(dataSource: DataSource, purge: BatchedDelete): Promise<number> {
  const batchSize = purge.batchSize ?? DEFAULT_BATCH_SIZE;
  const statement = batchDeleteStatement(purge);
  let deletedTotal = 0;
  for (;;) {
    // TypeORM answers a DELETE on Postgres with [rows, affected count].
    const [, deleted]: [unknown[], number] = await dataSource.query(statement, purge.parameters);
    deletedTotal += deleted;
    if (deleted < batchSize) return deletedTotal;
  }
}
