import { planOnIndexes } from '@mailroom/database';
import { createTestDatabase, dropTestDatabase } from '@mailroom/testing';
import { DataSource, EntityManager } from 'typeorm';

/** The plan Postgres picks for a lookup by a set of keys, as the delivery worker and the outbox relay send them. */
describe('planOnIndexes against Postgres', () => {
  let databaseUrl: string;
  let dataSource: DataSource;
  const lookup = `EXPLAIN UPDATE queue q SET state = u.state FROM jsonb_to_recordset($1::jsonb) AS u(id text, state text) WHERE q.id = u.id`;
  const keys = JSON.stringify([{ id: 'row-1', state: 'done' }]);
  const planOf = async (manager: EntityManager) => (await manager.query(lookup, [keys])).map((row: { 'QUERY PLAN': string }) => row['QUERY PLAN']).join('\n');

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    dataSource = await new DataSource({ type: 'postgres', url: databaseUrl }).initialize();
    // Analyzed while small, then grown: the statistics a young queue table has between autovacuum runs.
    await dataSource.query(`CREATE TABLE queue (id text PRIMARY KEY, state text NOT NULL)`);
    await dataSource.query(`INSERT INTO queue SELECT 'row-' || g, 'waiting' FROM generate_series(1, 100) g`);
    await dataSource.query(`ANALYZE queue`);
    await dataSource.query(`INSERT INTO queue SELECT 'row-' || g, 'waiting' FROM generate_series(101, 20000) g`);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await dropTestDatabase(databaseUrl);
  });

  it('finds the rows by key through the index, where the stale statistics alone read the whole table', async () => {
    const unguarded = await dataSource.transaction((manager) => planOf(manager));
    expect(unguarded).toMatch(/Seq Scan on queue/);

    const guarded = await dataSource.transaction(async (manager) => {
      await planOnIndexes(manager);
      return planOf(manager);
    });
    expect(guarded).not.toMatch(/Seq Scan on queue/);
    expect(guarded).toMatch(/Index Scan using queue_pkey/);
  });

  it('ends with the transaction, and switches off the other methods named', async () => {
    const settings = `SELECT current_setting('enable_seqscan') AS seq, current_setting('enable_bitmapscan') AS bitmap, current_setting('enable_sort') AS sort`;
    // One connection throughout, so the check after COMMIT reads the session the settings were made in.
    const runner = dataSource.createQueryRunner();
    try {
      await runner.startTransaction();
      await planOnIndexes(runner, ['bitmapscan', 'sort']);
      expect(await runner.query(settings)).toEqual([{ seq: 'off', bitmap: 'off', sort: 'off' }]);
      await runner.commitTransaction();
      expect(await runner.query(settings)).toEqual([{ seq: 'on', bitmap: 'on', sort: 'on' }]);
    } finally {
      await runner.release();
    }
  });
});
