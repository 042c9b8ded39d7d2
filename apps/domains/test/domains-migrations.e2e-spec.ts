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

  it("keeps a rotation's pending and retiring keys apart from the active one, which down() leaves on the domain row", async () => {
    const { dataSource } = database;
    await dataSource.query(
      `INSERT INTO domains.domains (id, name, region, status, spf_status, dkim_status, dmarc_status, dkim_selector, dkim_public_key, dkim_private_key_sealed)
       VALUES ('rotated', 'rotated.test', 'us', 'verified', 'verified', 'verified', 'verified', 'r202611a', 'active-key', 'active-sealed')`,
    );
    const insertKey = (id: string, selector: string, status: string, key: string | null, retireAfter: string | null) =>
      dataSource.query(
        `INSERT INTO domains.dkim_keys (id, domain_id, selector, status, public_key, private_key_sealed, retire_after) VALUES ($1, 'rotated', $2, $3, $4, $4, $5)`,
        [id, selector, status, key, retireAfter],
      );
    await insertKey('k1', 'mr202611', 'retiring', 'old', '2026-12-06T00:00:00Z');
    await insertKey('k2', 'r202611b', 'pending', 'new', null);
    // One pending key per domain, a selector never twice, a retired key keeps no key material, a retiring one has its end.
    await expect(insertKey('k3', 'r202611c', 'pending', 'newer', null)).rejects.toThrow(/dkim_keys_one_pending_idx/);
    await expect(insertKey('k3', 'mr202611', 'retired', null, null)).rejects.toThrow(/dkim_keys_selector_uq/);
    await expect(insertKey('k3', 'mr202610', 'retired', 'kept', null)).rejects.toThrow(/dkim_keys_key_kept_chk/);
    await expect(insertKey('k3', 'mr202610', 'retiring', 'old', null)).rejects.toThrow(/dkim_keys_retire_after_chk/);

    await database.undoThrough('CreateDkimKeys1763800000150');
    expect((await dataSource.query(`SELECT to_regclass('domains.dkim_keys') AS t`))[0].t).toBeNull();
    expect(await dataSource.query(`SELECT dkim_selector, dkim_public_key FROM domains.domains WHERE id = 'rotated'`)).toEqual([{ dkim_selector: 'r202611a', dkim_public_key: 'active-key' }]);
    await dataSource.runMigrations({ transaction: 'each' });
    expect(await dataSource.query(`SELECT count(*)::int AS n FROM domains.dkim_keys`)).toEqual([{ n: 0 }]);
    // A domain's deletion takes its other keys with it.
    await insertKey('k1', 'mr202611', 'retiring', 'old', '2026-12-06T00:00:00Z');
    await dataSource.query(`DELETE FROM domains.domains WHERE id = 'rotated'`);
    expect(await dataSource.query(`SELECT count(*)::int AS n FROM domains.dkim_keys`)).toEqual([{ n: 0 }]);
  });
});
