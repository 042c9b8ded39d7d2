import { preparedStatements, usePreparedStatements } from './prepared-statements';

/** A runner that records what it was handed. */
function recordingRunner() {
  const calls: unknown[][] = [];
  return { calls, query: async (...args: unknown[]) => (calls.push(args), []) };
}

describe('preparedStatements', () => {
  it('hands the runner a named query config, the same name for the same text', async () => {
    const runner = recordingRunner();
    const sql = preparedStatements(runner);
    await sql.query('SELECT $1::int AS n', [1]);
    await sql.query('SELECT $1::int AS n', [2]);
    await sql.query('SELECT $1::int AS m', [3]);
    const [first, second, other] = runner.calls.map(([config]) => config as { name: string; text: string; values: unknown[] });
    expect(first).toEqual({ name: expect.stringMatching(/^mailroom_[0-9a-f]{24}$/), text: 'SELECT $1::int AS n', values: [1] });
    expect(second).toEqual({ name: first.name, text: 'SELECT $1::int AS n', values: [2] });
    expect(other.name).not.toBe(first.name);
  });

  it('passes an empty parameter list when none is given', async () => {
    const runner = recordingRunner();
    await preparedStatements(runner).query('SELECT 1');
    expect(runner.calls[0][0]).toMatchObject({ text: 'SELECT 1', values: [] });
  });

  it('runs texts past the 256th distinct one unprepared, so a text built from data cannot fill the server', async () => {
    // A fresh copy of the module: the texts of the tests above count towards its limit.
    let fresh: typeof preparedStatements = preparedStatements;
    jest.isolateModules(() => ({ preparedStatements: fresh } = jest.requireActual<typeof import('./prepared-statements')>('./prepared-statements')));
    const runner = recordingRunner();
    const sql = fresh(runner);
    for (let index = 0; index < 256; index++) await sql.query(`SELECT ${index}`);
    await sql.query('SELECT 256', [7]);
    await sql.query('SELECT 0');
    expect(typeof runner.calls[255][0]).toBe('object');
    expect(runner.calls[256]).toEqual(['SELECT 256', [7]]);
    expect(runner.calls[257][0]).toMatchObject({ text: 'SELECT 0' });
  });

  it('runs every statement unprepared while DATABASE_PREPARED_STATEMENTS is off', async () => {
    const runner = recordingRunner();
    const sql = preparedStatements(runner);
    usePreparedStatements(false);
    try {
      await sql.query('SELECT $1::int AS n', [1]);
    } finally {
      usePreparedStatements(true);
    }
    await sql.query('SELECT $1::int AS n', [2]);
    expect(runner.calls[0]).toEqual(['SELECT $1::int AS n', [1]]);
    expect(runner.calls[1][0]).toMatchObject({ name: expect.stringMatching(/^mailroom_/), values: [2] });
  });
});
