import { COLUMN_DEFAULT, fitsOneStatement, insertAll, insertRows, MAX_BIND_PARAMETERS } from './insert-rows';

function recordingRunner() {
  const statements: { sql: string; parameters: unknown[] }[] = [];
  return { statements, query: async (sql: string, parameters: unknown[] = []) => void statements.push({ sql, parameters }) };
}

describe(insertRows.name, () => {
  it('writes all rows in one parameterized statement', async () => {
    const runner = recordingRunner();
    await insertRows(runner, 'emails.recipients', ['email_id', 'address'], [
      ['email_1', 'a@example.com'],
      ['email_1', 'b@example.com'],
    ]);
    expect(runner.statements).toEqual([
      {
        sql: 'INSERT INTO emails.recipients ("email_id", "address") VALUES ($1, $2), ($3, $4)',
        parameters: ['email_1', 'a@example.com', 'email_1', 'b@example.com'],
      },
    ]);
  });

  it('splits rows into statements that stay under the bind parameter limit', async () => {
    const runner = recordingRunner();
    const columns = ['a', 'b', 'c'];
    const rows = Array.from({ length: 50_000 }, (_, index) => [index, index, index]);
    await insertRows(runner, 't', columns, rows);
    expect(runner.statements.map((statement) => statement.parameters.length)).toEqual([65_535, 65_535, 18_930]);
    expect(runner.statements.every((statement) => statement.parameters.length <= MAX_BIND_PARAMETERS)).toBe(true);
  });

  it('writes DEFAULT, not a parameter, for COLUMN_DEFAULT', async () => {
    const runner = recordingRunner();
    await insertRows(runner, 't', ['a', 'b'], [[1, COLUMN_DEFAULT]]);
    expect(runner.statements[0]).toEqual({ sql: 'INSERT INTO t ("a", "b") VALUES ($1, DEFAULT)', parameters: [1] });
  });

  it('runs nothing for no rows', async () => {
    const runner = recordingRunner();
    await insertRows(runner, 't', ['a'], []);
    expect(runner.statements).toEqual([]);
  });

  it('refuses a row whose values do not match the columns', async () => {
    await expect(insertRows(recordingRunner(), 't', ['a', 'b'], [[1]])).rejects.toThrow(/1 values for 2 columns/);
  });
});

describe(insertAll.name, () => {
  const parents = { table: 'p', columns: ['id'], rows: [['p1'], ['p2']] };
  const children = { table: 'c', columns: ['parent_id', 'n'], rows: [['p1', 1]] };

  it('writes several tables in one statement, parents in the WITH clause first', async () => {
    const runner = recordingRunner();
    await insertAll(runner, [parents, children]);
    expect(runner.statements).toEqual([
      {
        sql: 'WITH inserted_0 AS (INSERT INTO p ("id") VALUES ($1), ($2)) INSERT INTO c ("parent_id", "n") VALUES ($3, $4)',
        parameters: ['p1', 'p2', 'p1', 1],
      },
    ]);
  });

  it('leaves out tables without rows', async () => {
    const runner = recordingRunner();
    await insertAll(runner, [parents, { table: 'c', columns: ['parent_id'], rows: [] }]);
    expect(runner.statements.map((statement) => statement.sql)).toEqual(['INSERT INTO p ("id") VALUES ($1), ($2)']);
  });

  it('falls back to one chunked insert per table, in order, when the parameters do not fit one statement', async () => {
    const runner = recordingRunner();
    const many = { table: 'c', columns: ['a', 'b'], rows: Array.from({ length: 40_000 }, (_, index) => [index, index]) };
    expect(fitsOneStatement([parents, many])).toBe(false);
    await insertAll(runner, [parents, many]);
    expect(runner.statements.map((statement) => [statement.sql.slice(0, 13), statement.parameters.length])).toEqual([
      ['INSERT INTO p', 2],
      ['INSERT INTO c', 65_534],
      ['INSERT INTO c', 14_466],
    ]);
  });
});
