import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { serviceDataSourceOptions } from '@mailroom/database';
import { MigratedSchema, startMigratedSchema, eventually } from '@mailroom/testing';
import { ApiKeyEntity } from '../src/database/entities/api-key.entity';
import { KEYS_SCHEMA } from '../src/database/data-source';
import { ApiKeysRepository } from '../src/api-keys/api-keys.repository';

/**
 * lastUsedAt reports from two gateway replicas, each listing its keys in the
 * order they were first used, written at the same time against real Postgres.
 */
describe('ApiKeysRepository.markUsed', () => {
  let database: MigratedSchema;
  let keys: ApiKeysRepository;
  /** A pool of its own: the two reports run side by side, as the keys service's pool runs them. */
  let pool: DataSource;
  const holders: Client[] = [];

  beforeAll(async () => {
    database = await startMigratedSchema(KEYS_SCHEMA);
    await database.dataSource.query(
      `INSERT INTO keys.api_keys (id, name, mode, key_hash, key_hint, permissions)
       SELECT 'key_' || lpad(n::text, 4, '0'), 'k', 'live', 'hash' || n, 'hint', '{*}' FROM generate_series(1, 2000) AS n`,
    );
    await database.dataSource.query('ANALYZE keys.api_keys');
    pool = await new DataSource(serviceDataSourceOptions(url(), KEYS_SCHEMA, { size: 4 })).initialize();
    keys = new ApiKeysRepository(pool.getRepository(ApiKeyEntity));
  });

  afterAll(async () => {
    await Promise.all(holders.map((holder) => holder.end()));
    await pool?.destroy();
    await database?.destroy();
  });

  const url = () => (database.dataSource.options as { url: string }).url;
  const holdRow = async (id: string): Promise<Client> => {
    const holder = new Client({ connectionString: url() });
    await holder.connect();
    holders.push(holder);
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM keys.api_keys WHERE id = $1 FOR UPDATE', [id]);
    return holder;
  };
  /** Resolves once `count` sessions wait for a lock (pg_locks is live, unlike pg_stat_activity). */
  const untilWaiting = (count: number) =>
    eventually(async () => (await database.dataSource.query('SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted'))[0].n >= count || undefined);

  it('records two reports naming the same keys in opposite orders, neither failing on a deadlock', async () => {
    const [first, second] = ['key_0001', 'key_0002'];
    const at = new Date('2026-11-27T10:00:00Z');
    const holdsSecond = await holdRow(second);
    const holdsFirst = await holdRow(first);

    const oneReplica = keys.markUsed([{ keyId: first, at }, { keyId: second, at }]);
    await untilWaiting(1);
    const otherReplica = keys.markUsed([{ keyId: second, at }, { keyId: first, at }]);
    await untilWaiting(2);
    await holdsFirst.query('COMMIT');
    // Whichever report took the first key now waits again, behind the other or the second key's holder.
    await untilWaiting(2);
    await holdsSecond.query('COMMIT');

    const outcomes = await Promise.allSettled([oneReplica, otherReplica]);
    expect(outcomes.map((outcome) => (outcome.status === 'rejected' ? String(outcome.reason) : 'recorded'))).toEqual(['recorded', 'recorded']);
    const rows = await database.dataSource.query('SELECT id, last_used_at FROM keys.api_keys WHERE id = ANY($1) ORDER BY id', [[first, second]]);
    expect(rows).toEqual([{ id: first, last_used_at: at }, { id: second, last_used_at: at }]);
  });
});
