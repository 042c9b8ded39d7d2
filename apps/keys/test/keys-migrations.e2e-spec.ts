import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { MigratedSchema, startMigratedSchema, untilBlockedBy } from '@mailroom/testing';
import { KEYS_SCHEMA } from '../src/database/data-source';

describe('keys schema migrations', () => {
  let database: MigratedSchema;
  let dataSource: DataSource;

  beforeAll(async () => {
    database = await startMigratedSchema(KEYS_SCHEMA);
    dataSource = database.dataSource;
  });

  afterAll(() => database?.destroy());

  /** A live `*` key as an earlier version stored it, with `values` in one of its restriction columns. */
  const insertKeyWith = (id: string, column: 'domain_restrictions' | 'ip_restrictions', values: string[]) =>
    dataSource.query(`INSERT INTO keys.api_keys (id, name, mode, key_hash, key_hint, permissions, ${column}) VALUES ($1, 'k', 'live', $1, 'mr_…', '{*}', $2)`, [
      id,
      values,
    ]);

  it('rewrites restrictions stored as written into the punycode every other domain is stored in', async () => {
    await database.undoThrough('StoreRestrictedDomainsInPunycode1763800000010');
    const insertKey = (id: string, domains: string[]) => insertKeyWith(id, 'domain_restrictions', domains);
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

  it('narrows IPv4-mapped ranges stored with an IPv4-sized prefix, which admitted every IPv4 client, to what they read like', async () => {
    await database.undoThrough('NarrowIpv4MappedRestrictions1763800000020');
    const insertKey = (id: string, ranges: string[]) => insertKeyWith(id, 'ip_restrictions', ranges);
    await insertKey('key_mapped', ['::FFFF:10.0.0.0/8', '::ffff:192.0.2.7/64', '::ffff:198.51.100.0/120', '203.0.113.0/24', '2001:db8::/32']);
    await insertKey('key_twice', ['::ffff:10.0.0.0/8', '::ffff:10.0.0.0/104']);
    await insertKey('key_other', ['10.0.0.0/8']);
    await dataSource.runMigrations({ transaction: 'each' });

    const rows = await dataSource.query(`SELECT id, ip_restrictions FROM keys.api_keys WHERE id IN ('key_mapped', 'key_twice', 'key_other') ORDER BY id`);
    expect(rows).toEqual([
      { id: 'key_mapped', ip_restrictions: ['::FFFF:10.0.0.0/104', '::ffff:192.0.2.7/128', '::ffff:198.51.100.0/120', '203.0.113.0/24', '2001:db8::/32'] },
      { id: 'key_other', ip_restrictions: ['10.0.0.0/8'] },
      { id: 'key_twice', ip_restrictions: ['::ffff:10.0.0.0/104'] },
    ]);
  });

  it('narrows any other range written with a dotted IPv4 tail and a prefix under /96 (::10.0.0.0/8 is ::/8) to the IPv4 range it reads like', async () => {
    await database.undoThrough('NarrowDottedIpv6Restrictions1763800000030');
    const insertKey = (id: string, ranges: string[]) => insertKeyWith(id, 'ip_restrictions', ranges);
    await insertKey('key_compat', ['::10.0.0.0/8', '64:ff9b::192.0.2.7/64', '::10.0.0.0/104', '64:ff9b::/96', '2001:db8::/32', '192.0.2.0/24']);
    await insertKey('key_same', ['::10.0.0.0/8', '::ffff:10.0.0.0/104']);
    await dataSource.runMigrations({ transaction: 'each' });

    const rows = await dataSource.query(`SELECT id, ip_restrictions FROM keys.api_keys WHERE id IN ('key_compat', 'key_same') ORDER BY id`);
    expect(rows).toEqual([
      { id: 'key_compat', ip_restrictions: ['::ffff:10.0.0.0/104', '::ffff:192.0.2.7/128', '::10.0.0.0/104', '64:ff9b::/96', '2001:db8::/32', '192.0.2.0/24'] },
      { id: 'key_same', ip_restrictions: ['::ffff:10.0.0.0/104'] },
    ]);
  });

  /**
   * The previous release's keys service answers PATCH while the migration
   * runs. A migration that reads a key, then writes what it computed from
   * that read, wrote back a change committed in between.
   */
  it.each([
    ['StoreRestrictedDomainsInPunycode1763800000010', 'domain_restrictions', ['bücher.test', 'a.test'], ['a.test']],
    ['NarrowIpv4MappedRestrictions1763800000020', 'ip_restrictions', ['::ffff:10.0.0.0/8', '192.0.2.0/24'], ['192.0.2.0/24']],
    ['NarrowDottedIpv6Restrictions1763800000030', 'ip_restrictions', ['::10.0.0.0/8', '192.0.2.0/24'], ['192.0.2.0/24']],
  ] as const)('%s keeps a restriction changed by a PATCH committed while it runs', async (migration, column, stored, patched) => {
    await database.undoThrough(migration);
    const id = `key_patched_${migration}`;
    await insertKeyWith(id, column, [...stored]);
    const patch = new Client({ connectionString: (dataSource.options as { url: string }).url });
    await patch.connect();
    try {
      await patch.query('BEGIN');
      await patch.query(`UPDATE keys.api_keys SET ${column} = $2 WHERE id = $1`, [id, patched]);
      const migrating = dataSource.runMigrations({ transaction: 'each' });
      await untilBlockedBy(patch);
      await patch.query('COMMIT');
      await migrating;
    } finally {
      await patch.end();
    }

    const [row] = await dataSource.query(`SELECT ${column} AS restrictions FROM keys.api_keys WHERE id = $1`, [id]);
    expect(row.restrictions).toEqual(patched);
  });
});
