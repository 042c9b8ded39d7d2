/** Anything that runs parameterized SQL: an EntityManager, a QueryRunner, a DataSource. */
export interface SqlRunner {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}

/** Rows for one table, each listing its values in `columns` order. */
export interface TableRows {
  /** Schema-qualified and quoted as needed, e.g. `emails.outbox`. */
  table: string;
  columns: readonly string[];
  rows: readonly unknown[][];
}

/** The wire protocol counts bind parameters in an Int16, so one statement takes at most 65,535. */
export const MAX_BIND_PARAMETERS = 65_535;

/** A value that lets the column take its own default (the SQL keyword DEFAULT, not a parameter). */
export const COLUMN_DEFAULT: unique symbol = Symbol('COLUMN_DEFAULT');

/**
 * Inserts rows with one multi-row `INSERT ... VALUES (...), (...)` per chunk,
 * each chunk under the bind parameter limit. Values go to the pg driver as
 * they are (arrays become Postgres arrays), so JSON columns must be given as
 * JSON text; COLUMN_DEFAULT writes DEFAULT.
 */
export async function insertRows(runner: SqlRunner, table: string, columns: readonly string[], rows: readonly unknown[][]): Promise<void> {
  if (!columns.length) throw new Error(`insertRows into ${table} needs at least one column`);
  const rowsPerStatement = Math.floor(MAX_BIND_PARAMETERS / columns.length);
  for (let start = 0; start < rows.length; start += rowsPerStatement) {
    const parameters: unknown[] = [];
    const sql = insertSql({ table, columns, rows: rows.slice(start, start + rowsPerStatement) }, parameters);
    await runner.query(sql, parameters);
  }
}

/** Whether insertAll can write these in one statement. */
export function fitsOneStatement(inserts: readonly TableRows[]): boolean {
  return inserts.reduce((count, insert) => count + insert.columns.length * insert.rows.length, 0) <= MAX_BIND_PARAMETERS;
}

/**
 * Inserts into several tables, parents before children. When the parameters
 * fit, it is one statement (every INSERT but the last in a WITH clause): one
 * round trip, and atomic even outside a transaction. Foreign keys between
 * them hold, because their checks run at the end of the statement. When they
 * do not fit, it is insertRows per table in order, atomic only inside the
 * caller's transaction.
 */
export async function insertAll(runner: SqlRunner, inserts: readonly TableRows[]): Promise<void> {
  const nonEmpty = inserts.filter((insert) => insert.rows.length);
  if (!nonEmpty.length) return;
  if (!fitsOneStatement(nonEmpty)) {
    for (const { table, columns, rows } of nonEmpty) await insertRows(runner, table, columns, rows);
    return;
  }
  const parameters: unknown[] = [];
  const statements = nonEmpty.map((insert) => insertSql(insert, parameters));
  const last = statements.pop()!;
  const sql = statements.length ? `WITH ${statements.map((statement, index) => `inserted_${index} AS (${statement})`).join(', ')} ${last}` : last;
  await runner.query(sql, parameters);
}

function insertSql({ table, columns, rows }: TableRows, parameters: unknown[]): string {
  const tuples = rows.map((row) => {
    if (row.length !== columns.length) throw new Error(`Insert into ${table}: a row has ${row.length} values for ${columns.length} columns`);
    const placeholders = row.map((value) => (value === COLUMN_DEFAULT ? 'DEFAULT' : `$${parameters.push(value)}`));
    return `(${placeholders.join(', ')})`;
  });
  return `INSERT INTO ${table} (${columns.map(quoteIdentifier).join(', ')}) VALUES ${tuples.join(', ')}`;
}

function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
