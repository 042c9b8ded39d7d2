import { DataSource } from 'typeorm';
import { MigratedSchema, recordDeletesPerStatement, startMigratedSchema } from '@mailroom/testing';
import { EMAILS_SCHEMA } from '../src/database/data-source';
import { IdempotencyStore } from '../src/emails/idempotency.store';

const EXPIRED = 12_001;

/** The hourly purge of Idempotency-Key answers past their 24 hours, against real Postgres. */
describe('IdempotencyStore.purgeExpired', () => {
  let database: MigratedSchema;
  let dataSource: DataSource;
  let deletedPerStatement: () => Promise<number[]>;

  beforeAll(async () => {
    database = await startMigratedSchema(EMAILS_SCHEMA);
    dataSource = database.dataSource;
    deletedPerStatement = await recordDeletesPerStatement(dataSource, 'emails.idempotency_keys');
  });

  afterAll(() => database?.destroy());

  it('deletes the keys past their 24 hours in bounded statements and keeps the fresh ones', async () => {
    await dataSource.query(
      `INSERT INTO emails.idempotency_keys (api_key_id, key, request_hash, response, status_code, created_at)
       SELECT 'key_' || (n % 7), 'old-' || n, 'hash', '{}', 202, now() - interval '25 hours' + n * interval '1 ms' FROM generate_series(1, $1) AS n`,
      [EXPIRED],
    );
    await dataSource.query(
      `INSERT INTO emails.idempotency_keys (api_key_id, key, request_hash, response, status_code, created_at)
       VALUES ('key_1', 'fresh-1', 'hash', '{}', 202, now() - interval '23 hours 59 minutes'), ('key_2', 'fresh-2', 'hash', '{}', 202, now())`,
    );

    expect(await new IdempotencyStore(dataSource).purgeExpired()).toBe(EXPIRED);

    const left = await dataSource.query('SELECT key FROM emails.idempotency_keys ORDER BY key');
    expect(left).toEqual([{ key: 'fresh-1' }, { key: 'fresh-2' }]);
    const statements = await deletedPerStatement();
    expect(statements.reduce((sum, deleted) => sum + deleted, 0)).toBe(EXPIRED);
    expect(Math.max(...statements)).toBeLessThanOrEqual(5000);
  });
});
