import { DataSource } from 'typeorm';
import { MigratedSchema, startMigratedSchema } from '@mailroom/testing';
import { KEYS_SCHEMA } from '../src/database/data-source';

describe('keys schema migrations', () => {
  let database: MigratedSchema;
  let dataSource: DataSource;

  beforeAll(async () => {
    database = await startMigratedSchema(KEYS_SCHEMA);
    dataSource = database.dataSource;
  });

  afterAll(() => database?.destroy());

  it('rewrites restrictions stored as written into the punycode every other domain is stored in', async () => {
    await database.undoThrough('StoreRestrictedDomainsInPunycode1763800000010');
    const insertKey = (id: string, domains: string[]) =>
      dataSource.query(
        `INSERT INTO keys.api_keys (id, name, mode, key_hash, key_hint, permissions, domain_restrictions) VALUES ($1, 'k', 'live', $1, 'mr_…', '{*}', $2)`,
        [id, domains],
      );
    await insertKey('key_idn', ['bücher.test', 'xn--bcher-kva.test', 'plain.test']);
    await insertKey('key_plain', ['plain.test']);
    await insertKey('key_none', []);
    await dataSource.runMigrations({ transaction: 'each' });

    const rows = await dataSource.query('SELECT id, domain_restrictions FROM keys.api_keys ORDER BY id');
    expect(rows).toEqual([
      { id: 'key_idn', domain_restrictions: ['xn--bcher-kva.test', 'plain.test'] },
      { id: 'key_none', domain_restrictions: [] },
      { id: 'key_plain', domain_restrictions: ['plain.test'] },
    ]);
  });
});
