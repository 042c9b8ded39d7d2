import { preparedStatements, usePreparedStatements } from '@mailroom/database';
import { createTestDatabase, dropTestDatabase } from '@mailroom/testing';
import { DataSource, QueryFailedError } from 'typeorm';

/** Named prepared statements through TypeORM, against real Postgres: same answers and errors as EntityManager.query, parsed once per connection. */
describe('preparedStatements against Postgres', () => {
  let databaseUrl: string;
  let dataSource: DataSource;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    dataSource = await new DataSource({ type: 'postgres', url: databaseUrl, poolSize: 2 }).initialize();
    await dataSource.query('CREATE TABLE item (id int PRIMARY KEY, label text NOT NULL)');
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await dropTestDatabase(databaseUrl);
  });

  beforeEach(() => dataSource.query('TRUNCATE item'));

  it('answers as EntityManager.query does: rows for a SELECT or INSERT, [rows, count] for an UPDATE or DELETE', async () => {
    await dataSource.query(`INSERT INTO item VALUES (1, 'one'), (2, 'two')`);
    const sql = preparedStatements(dataSource);
    const select = 'SELECT id, label FROM item WHERE id = ANY($1::int[]) ORDER BY id';
    expect(await sql.query(select, [[1, 2]])).toEqual(await dataSource.query(select, [[1, 2]]));
    expect(await sql.query(`INSERT INTO item VALUES ($1, $2) RETURNING id`, [3, 'three'])).toEqual([{ id: 3 }]);
    expect(await sql.query(`UPDATE item SET label = upper(label) WHERE id < $1 RETURNING id`, [3])).toEqual([[{ id: 1 }, { id: 2 }], 2]);
    expect(await sql.query(`DELETE FROM item WHERE id = $1`, [3])).toEqual([[], 1]);
    expect(await dataSource.query('SELECT label FROM item ORDER BY id')).toEqual([{ label: 'ONE' }, { label: 'TWO' }]);
  });

  it('prepares a text once per connection and runs it again by name', async () => {
    const runs = await dataSource.transaction(async (manager) => {
      const sql = preparedStatements(manager);
      for (let id = 1; id <= 7; id++) await sql.query('INSERT INTO item (id, label) VALUES ($1, $2)', [id, `item ${id}`]);
      return manager.query(`SELECT name, generic_plans + custom_plans AS runs FROM pg_prepared_statements WHERE statement = $1`, [
        'INSERT INTO item (id, label) VALUES ($1, $2)',
      ]);
    });
    expect(runs).toEqual([{ name: expect.stringMatching(/^mailroom_/), runs: '7' }]);
    expect(await dataSource.query('SELECT count(*)::int AS n FROM item')).toEqual([{ n: 7 }]);
  });

  it('fails as EntityManager.query fails: a QueryFailedError with the SQLSTATE, and the transaction rolls back', async () => {
    const failure = await dataSource
      .transaction(async (manager) => {
        const sql = preparedStatements(manager);
        await sql.query('INSERT INTO item (id, label) VALUES ($1, $2)', [1, 'first']);
        await sql.query('INSERT INTO item (id, label) VALUES ($1, $2)', [1, 'again']);
      })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(QueryFailedError);
    expect(failure).toMatchObject({ code: '23505' });
    expect(await dataSource.query('SELECT count(*)::int AS n FROM item')).toEqual([{ n: 0 }]);
  });

  it('keeps answering after a migration adds a column when it names its columns, where a prepared * fails', async () => {
    // One connection, so every statement below runs on the connection that prepared it.
    const single = await new DataSource({ type: 'postgres', url: databaseUrl, poolSize: 1 }).initialize();
    try {
      await dataSource.query(`INSERT INTO item VALUES (1, 'one')`);
      const sql = preparedStatements(single);
      const named = 'UPDATE item SET label = $2 WHERE id = $1 RETURNING id, label';
      const starred = 'UPDATE item SET label = $2 WHERE id = $1 RETURNING *';
      await sql.query(named, [1, 'before']);
      await sql.query(starred, [1, 'before']);
      await dataSource.query('ALTER TABLE item ADD COLUMN added int');
      expect(await sql.query(named, [1, 'after'])).toEqual([[{ id: 1, label: 'after' }], 1]);
      await expect(sql.query(starred, [1, 'after'])).rejects.toThrow('cached plan must not change result type');
    } finally {
      await single.destroy();
      await dataSource.query('ALTER TABLE item DROP COLUMN IF EXISTS added');
    }
  });

  it('prepares nothing while switched off, for a pooler that cannot keep named statements', async () => {
    usePreparedStatements(false);
    try {
      const prepared = await dataSource.transaction(async (manager) => {
        const sql = preparedStatements(manager);
        for (let id = 1; id <= 3; id++) await sql.query('INSERT INTO item (label, id) VALUES ($2, $1)', [id, `item ${id}`]);
        return manager.query('SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement = $1', ['INSERT INTO item (label, id) VALUES ($2, $1)']);
      });
      expect(prepared).toEqual([{ n: 0 }]);
      expect(await dataSource.query('SELECT count(*)::int AS n FROM item')).toEqual([{ n: 3 }]);
    } finally {
      usePreparedStatements(true);
    }
  });
});
