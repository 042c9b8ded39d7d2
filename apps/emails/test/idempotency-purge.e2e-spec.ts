import { DataSource } from 'typeorm';
import { MigratedSchema, startMigratedSchema } from '@mailroom/testing';
import { EMAILS_SCHEMA } from '../src/database/data-source';
import { IdempotencyStore } from '../src/emails/idempotency.store';

const EXPIRED = 12_001;

/** The hourly purge of Idempotency-Key answers past their 24 hours, against real Postgres. */
describe('IdempotencyStore.purgeExpired', () => {
  let database: MigratedSchema;
  let dataSource: DataSource;

  beforeAll(async () => {
    database = await startMigratedSchema(EMAILS_SCHEMA);
    dataSource = database.dataSource;
    // Records how many rows each DELETE statement took, so the test sees the statements the purge ran.
    await dataSource.query('CREATE TABLE public.deleted_per_statement (deleted int NOT NULL)');
    await dataSource.query(`
      CREATE FUNCTION public.count_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO public.deleted_per_statement SELECT count(*) FROM old_rows; RETURN NULL; END $$`);
    await dataSource.query(`CREATE TRIGGER count_deleted AFTER DELETE ON emails.idempotency_keys
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.count_deleted()`);
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
    const statements: Array<{ deleted: number }> = await dataSource.query('SELECT deleted FROM public.deleted_per_statement');
    expect(statements.reduce((sum, row) => sum + row.deleted, 0)).toBe(EXPIRED);
    expect(Math.max(...statements.map((row) => row.deleted))).toBeLessThanOrEqual(5000);
  });
});
