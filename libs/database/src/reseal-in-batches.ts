import { DataSource } from 'typeorm';

/** Where a service stores one kind of sealed secret: text columns of `table`, each sealed with its row's `id` as context (or `context`'s). */
export interface SealedColumns {
  /** Schema-qualified: "domains.domains". */
  table: string;
  /** Nullable columns are skipped where null. */
  columns: readonly string[];
  /** The column holding the associated data the values were sealed with, when not the row's `id` (a key sealed for its domain, kept in a row of its own). */
  context?: string;
}

/** What opens and seals the values (SecretBox, kept out of this library's dependencies). */
export interface Sealer {
  open(sealed: string, context: string): { plaintext: string; sealedWithPrevious: boolean };
  encrypt(plaintext: string, context: string): string;
}

/** What one pass over the table found. */
export interface ResealOutcome {
  /** Sealed again under the current key. */
  resealed: number;
  /** Still sealed with a previous key: the value changed (or its row went) between read and write; the next pass looks again. */
  remaining: number;
  /** Opened by no key the service holds: sealing again cannot help. */
  unreadable: number;
}

const BATCH_ROWS = 100;

/**
 * Seals again under the current key every value of `sealed` that only a previous key opens, a batch of rows at a
 * time in id order, until the table is read or `stopped` (shutdown) says to end between batches. Each value is
 * written only if it is still the one read (compare-and-set): a secret rotated or a row deleted meanwhile wins,
 * and no lock is held across batches, so the API and the dispatch loop never wait on it.
 */
export async function resealInBatches(dataSource: DataSource, sealer: Sealer, sealed: SealedColumns, stopped: () => boolean): Promise<ResealOutcome> {
  const outcome: ResealOutcome = { resealed: 0, remaining: 0, unreadable: 0 };
  let after = '';
  while (!stopped()) {
    const rows: Record<string, string | null>[] = await dataSource.query(
      `SELECT id, ${sealed.context ?? 'id'} AS sealing_context, ${sealed.columns.join(', ')} FROM ${sealed.table} WHERE id > $1 ORDER BY id LIMIT ${BATCH_ROWS}`,
      [after],
    );
    for (const row of rows) {
      for (const column of sealed.columns) {
        const value = row[column];
        if (value !== null) await resealValue(dataSource, sealer, { table: sealed.table, column, id: row.id as string, context: row.sealing_context as string, value }, outcome);
      }
    }
    if (rows.length < BATCH_ROWS) break;
    after = rows[rows.length - 1].id as string;
  }
  return outcome;
}

async function resealValue(dataSource: DataSource, sealer: Sealer, cell: { table: string; column: string; id: string; context: string; value: string }, outcome: ResealOutcome): Promise<void> {
  let opened;
  try {
    opened = sealer.open(cell.value, cell.context);
  } catch {
    outcome.unreadable += 1;
    return;
  }
  if (!opened.sealedWithPrevious) return;
  // TypeORM answers an UPDATE on Postgres with [rows, affected count].
  const [, updated]: [unknown[], number] = await dataSource.query(`UPDATE ${cell.table} SET ${cell.column} = $1 WHERE id = $2 AND ${cell.column} = $3`, [
    sealer.encrypt(opened.plaintext, cell.context),
    cell.id,
    cell.value,
  ]);
  if (updated === 1) outcome.resealed += 1;
  else outcome.remaining += 1;
}
