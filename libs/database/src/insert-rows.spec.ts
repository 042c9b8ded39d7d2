import { COLUMN_DEFAULT, insertAll, insertRows } from './insert-rows';

function recordingRunner() {
  const statements: { sql: string; parameters: unknown[] }[] = [];
  return { statements, query: async (sql: string, parameters: unknown[] = []) => void statements.push({ sql, parameters }) };
}

const recipients = {
  table: 'emails.recipients',
  columns: ['email_id', 'address'],
  types: ['text', 'text'],
  rows: [
    ['email_1', 'a@example.com'],
    ['email_1', 'b@example.com'],
  ],
};

describe(insertRows.name, () => {
  it('writes all rows in one statement with one JSON parameter', async () => {
    const runner = recordingRunner();
    await insertRows(runner, recipients);
    expect(runner.statements).toEqual([
      {
        sql:
          'INSERT INTO emails.recipients ("email_id", "address") SELECT "email_id", "address" ' +
          'FROM jsonb_to_recordset($1::jsonb) AS r("email_id" text, "address" text)',
        parameters: ['[{"email_id":"email_1","address":"a@example.com"},{"email_id":"email_1","address":"b@example.com"}]'],
      },
    ]);
  });

  it('writes every value as JSON: JSON columns as the value itself, timestamps as ISO strings, NULL as a missing key', async () => {
    const runner = recordingRunner();
    const at = new Date('2030-01-02T03:04:05.678Z');
    await insertRows(runner, { table: 't', columns: ['data', 'tags', 'at', 'n'], types: ['jsonb', 'text[]', 'timestamptz', 'int'], rows: [[{ a: 1 }, ['x'], at, null]] });
    const records = JSON.parse(runner.statements[0].parameters[0] as string);
    expect(records).toEqual([{ data: { a: 1 }, tags: ['x'], at: '2030-01-02T03:04:05.678Z' }]);
    // jsonb_to_recordset gives a key that is not there NULL; the column is still in the insert, so no default applies.
    expect(runner.statements[0].sql).toContain('"n" int');
  });

  it('writes each row its own instant, where rows share a timestamp or follow one another, and an invalid Date as NULL', async () => {
    const runner = recordingRunner();
    const first = new Date('2030-01-02T03:04:05.678Z');
    const second = new Date('2031-05-06T07:08:09.010Z');
    await insertRows(runner, {
      table: 't',
      columns: ['created', 'updated'],
      types: ['timestamptz', 'timestamptz'],
      rows: [[first, first], [first, second], [second, new Date(Number.NaN)]],
    });
    expect(JSON.parse(runner.statements[0].parameters[0] as string)).toEqual([
      { created: '2030-01-02T03:04:05.678Z', updated: '2030-01-02T03:04:05.678Z' },
      { created: '2030-01-02T03:04:05.678Z', updated: '2031-05-06T07:08:09.010Z' },
      { created: '2031-05-06T07:08:09.010Z' },
    ]);
  });

  it('leaves COLUMN_DEFAULT columns out, in a statement of their own for rows that differ', async () => {
    const runner = recordingRunner();
    await insertRows(runner, { table: 't', columns: ['a', 'b'], types: ['int', 'text'], rows: [[1, COLUMN_DEFAULT], [2, 'two'], [3, COLUMN_DEFAULT]] });
    const [{ sql, parameters }] = runner.statements;
    expect(sql).toBe(
      'WITH inserted_0 AS (INSERT INTO t ("a") SELECT "a" FROM jsonb_to_recordset($1::jsonb) AS r("a" int)) ' +
        'INSERT INTO t ("a", "b") SELECT "a", "b" FROM jsonb_to_recordset($2::jsonb) AS r("a" int, "b" text)',
    );
    expect(parameters).toEqual(['[{"a":1},{"a":3}]', '[{"a":2,"b":"two"}]']);
  });

  it('turns a lone surrogate into U+FFFD and leaves an escaped backslash before u as text', async () => {
    const runner = recordingRunner();
    await insertRows(runner, { table: 't', columns: ['a'], types: ['text'], rows: [['x\uD800y'], ['\\uD800'], ['😀']] });
    expect(JSON.parse(runner.statements[0].parameters[0] as string)).toEqual([{ a: 'x\uFFFDy' }, { a: '\\uD800' }, { a: '😀' }]);
  });

  it('runs nothing for no rows', async () => {
    const runner = recordingRunner();
    await insertRows(runner, { ...recipients, rows: [] });
    expect(runner.statements).toEqual([]);
  });

  it('refuses a row whose values do not match the columns', async () => {
    await expect(insertRows(recordingRunner(), { table: 't', columns: ['a', 'b'], types: ['int', 'int'], rows: [[1]] })).rejects.toThrow(/1 values for 2 columns/);
  });
});

describe(insertAll.name, () => {
  const parents = { table: 'p', columns: ['id'], types: ['text'], rows: [['p1'], ['p2']] };
  const children = { table: 'c', columns: ['parent_id', 'n'], types: ['text', 'int'], rows: [['p1', 1]] };

  it('writes several tables in one statement, parents in the WITH clause first', async () => {
    const runner = recordingRunner();
    await insertAll(runner, [parents, children]);
    expect(runner.statements).toHaveLength(1);
    expect(runner.statements[0].sql).toMatch(/^WITH inserted_0 AS \(INSERT INTO p \("id"\) .*\$1::jsonb.*\) INSERT INTO c \("parent_id", "n"\) .*\$2::jsonb/);
    expect(runner.statements[0].parameters).toEqual(['[{"id":"p1"},{"id":"p2"}]', '[{"parent_id":"p1","n":1}]']);
  });

  it('leaves out tables without rows', async () => {
    const runner = recordingRunner();
    await insertAll(runner, [parents, { ...children, rows: [] }]);
    expect(runner.statements.map((statement) => statement.sql)).toEqual([expect.stringMatching(/^INSERT INTO p /)]);
  });
});
