import { DataSource } from 'typeorm';

/**
 * Deletes the rows of `table` that match `where`, at most `batchSize` per
 * statement, lowest `keyColumn` first, until none are left: a retention purge
 * that never holds locks or WAL for long in one statement. Answers how many
 * rows went.
 */
export async function deleteInBatches(
  dataSource: DataSource,
  { table, keyColumn, where, parameters, batchSize = 5000 }: { table: string; keyColumn: string; where: string; parameters: unknown[]; batchSize?: number },
): Promise<number> {
  let deletedTotal = 0;
  for (;;) {
    // TypeORM answers a DELETE on Postgres with [rows, affected count].
    const [, deleted]: [unknown[], number] = await dataSource.query(
      `DELETE FROM ${table} WHERE ${keyColumn} IN (SELECT ${keyColumn} FROM ${table} WHERE ${where} ORDER BY ${keyColumn} LIMIT ${batchSize})`,
      parameters,
    );
    deletedTotal += deleted;
    if (deleted < batchSize) return deletedTotal;
  }
}
