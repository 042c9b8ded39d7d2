import { MigratedSchema, startMigratedSchema } from '@mailroom/testing';
import { DOMAINS_SCHEMA } from '../src/database/data-source';

describe('domains schema migrations', () => {
  let database: MigratedSchema;

  beforeAll(async () => {
    database = await startMigratedSchema(DOMAINS_SCHEMA);
  });

  afterAll(() => database?.destroy());

  it('gives a domain that had been verified, and failed before failed domains were re-checked, one more look', async () => {
    const { dataSource } = database;
    await database.undoThrough('RecheckDomainsFailedBeforeRechecks1763800000140');
    const insert = (id: string, status: string, verifiedAt: string | null) =>
      dataSource.query(
        `INSERT INTO domains.domains (id, name, region, status, spf_status, dkim_status, dmarc_status, dkim_selector, dkim_public_key, dkim_private_key_sealed, verified_at, failed_at)
         VALUES ($1, $1 || '.test', 'us', $2, 'pending', 'pending', 'pending', 'mr1', 'key', 'sealed', $3, CASE WHEN $2 = 'failed' THEN now() END)`,
        [id, status, verifiedAt],
      );
    await insert('lapsed', 'failed', '2026-11-01T00:00:00Z');
    await insert('never', 'failed', null);
    await insert('pending', 'pending', null);
    await dataSource.runMigrations({ transaction: 'each' });

    const rows: Array<{ id: string; due: boolean }> = await dataSource.query(`SELECT id, next_check_at IS NOT NULL AS due FROM domains.domains ORDER BY id`);
    expect(rows).toEqual([
      { id: 'lapsed', due: true },
      { id: 'never', due: false },
      { id: 'pending', due: false },
    ]);
  });
});
