import { rowsetJson } from './recordset-json';

/** Anything that runs parameterized SQL: an EntityManager, a QueryRunner, a DataSource. */
export interface SqlRunner {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}

/**
 * Rows for one table, each listing its values in `columns` order, as
 * JSON.stringify writes them: a JSON column takes the value itself (not
 * JSON text), a timestamp a Date, an array column an array.
 */
export interface TableRows {
  /** Schema-qualified and quoted as needed, e.g. `emails.outbox`. */
  table: string;
  columns: readonly string[];
  /** The Postgres type of each column, e.g. `text`, `text[]`, `jsonb`, `timestamp with time zone`. */
  types: readonly string[];
  rows: readonly unknown[][];
}

/** A value that lets the column take its own default (the column is left out of the insert). */
export const COLUMN_DEFAULT: unique symbol = Symbol('COLUMN_DEFAULT');

/** Inserts rows into one table in one statement (see insertAll); COLUMN_DEFAULT lets a column take its default. */
export async function insertRows(runner: SqlRunner, rows: TableRows): Promise<void> {
  await insertAll(runner, [rows]);
}

/**
 * Inserts into several tables, parents before children, in one statement
 * (every INSERT but the last in a WITH clause): one round trip, and atomic
 * even outside a transaction. Foreign keys between them hold, because their
 * checks run at the end of the statement.
 *
 * Each table's rows travel as one JSON parameter (rowsetJson), unpacked by
 * jsonb_to_recordset. A multi-row VALUES list with a parameter per value
 * made Postgres parse and plan thousands of parameters per statement (a
 * batch of 100 emails is 2,500 for the emails alone): measured on the emails
 * table, JSON cuts the database's CPU per row by about a third, and the
 * driver's, which no longer serializes each value on its own. It also has no
 * limit on the number of values, where a statement takes 65,535 parameters.
 */
export async function insertAll(runner: SqlRunner, inserts: readonly TableRows[]): Promise<void> {
  const parameters: unknown[] = [];
  const statements = inserts.flatMap((insert) => insertStatements(insert, parameters));
  if (!statements.length) return;
  const last = statements.pop()!;
  const sql = statements.length ? `WITH ${statements.map((statement, index) => `inserted_${index} AS (${statement})`).join(', ')} ${last}` : last;
  await runner.query(sql, parameters);
}

/** A query whose rows, if it returns any, stop insertAllUnless from inserting anything. */
export interface BlockingQuery {
  /** A SELECT; its parameters are numbered from $1. */
  sql: string;
  parameters: readonly unknown[];
}

/**
 * insertAll, unless `blocking` finds rows: then nothing is inserted and those
 * rows are returned. Still one statement and one round trip; the check and
 * the inserts see the same snapshot. For a precondition that nearly always
 * holds, where asking first would cost a round trip every time.
 */
export async function insertAllUnless<Row>(runner: SqlRunner, blocking: BlockingQuery, inserts: readonly TableRows[]): Promise<Row[]> {
  const parameters: unknown[] = [...blocking.parameters];
  const statements = inserts.flatMap((insert) => insertStatements(insert, parameters, ' WHERE NOT EXISTS (SELECT 1 FROM blocking)'));
  // Data-modifying WITH clauses run to completion whether or not the main query reads them.
  const sql = `WITH blocking AS MATERIALIZED (${blocking.sql})${statements.map((statement, index) => `, inserted_${index} AS (${statement})`).join('')} SELECT * FROM blocking`;
  return (await runner.query(sql, parameters)) as Row[];
}

/**
 * One INSERT per set of columns given: the rows that leave the same columns
 * to their defaults share one (nearly always every row does), since a column
 * named in the insert takes what the record holds, NULL where it holds none.
 */
function insertStatements(insert: TableRows, parameters: unknown[], condition = ''): string[] {
  const { table, columns, types, rows } = insert;
  if (types.length !== columns.length) throw new Error(`Insert into ${table}: ${types.length} types for ${columns.length} columns`);
  const groups = new Map<string, { given: number[]; rows: (readonly unknown[])[] }>();
  for (const row of rows) {
    if (row.length !== columns.length) throw new Error(`Insert into ${table}: a row has ${row.length} values for ${columns.length} columns`);
    let key = '';
    for (let index = 0; index < row.length; index++) if (row[index] === COLUMN_DEFAULT) key += `${index},`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { given: columns.flatMap((_, index) => (row[index] === COLUMN_DEFAULT ? [] : [index])), rows: [] }));
    group.rows.push(row);
  }
  return [...groups.values()].map(({ given, rows: groupRows }) => {
    if (!given.length) {
      parameters.push(groupRows.length);
      return `INSERT INTO ${table} SELECT FROM generate_series(1, $${parameters.length}::int)${condition}`;
    }
    const names = given.map((index) => quoteIdentifier(columns[index]));
    const record = given.map((index) => `${quoteIdentifier(columns[index])} ${types[index]}`);
    parameters.push(rowsetJson(groupRows, columns, given));
    return `INSERT INTO ${table} (${names.join(', ')}) SELECT ${names.join(', ')} FROM jsonb_to_recordset($${parameters.length}::jsonb) AS r(${record.join(', ')})${condition}`;
  });
}

function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
