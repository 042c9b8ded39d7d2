import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { adminDatabaseUrl, createTestDatabase, dropTestDatabase } from '@mailroom/testing';
import { migrateAll } from '../migrate-all';
import { SERVICE_SCHEMAS } from '../service-schemas';

async function asAdmin(databaseUrl: string, sql: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * A least-privilege setup: the DBA creates the four schemas, owned by the
 * role Mailroom connects as, and that role may not create anything else in
 * the database (no CREATE on it, which only its owner has by default).
 */
describe('npm run migrate as a role that owns its schemas but may not create schemas', () => {
  const role = `mailroom_test_${randomBytes(4).toString('hex')}`;
  let databaseUrl: string;
  let roleUrl: string;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    await asAdmin(adminDatabaseUrl(), `CREATE ROLE ${role} LOGIN`);
    await asAdmin(databaseUrl, SERVICE_SCHEMAS.map((owned) => `CREATE SCHEMA ${owned.schema} AUTHORIZATION ${role};`).join('\n'));
    const url = new URL(databaseUrl);
    url.username = role;
    roleUrl = url.toString();
  });

  afterAll(async () => {
    await dropTestDatabase(databaseUrl);
    await asAdmin(adminDatabaseUrl(), `DROP ROLE IF EXISTS ${role}`);
  });

  it('migrates every schema, and runs again with nothing to do', async () => {
    const lines: string[] = [];
    await migrateAll(roleUrl, (line) => lines.push(line));
    expect(lines).toHaveLength(SERVICE_SCHEMAS.length);
    expect(lines.every((line) => / applied /.test(line))).toBe(true);

    lines.length = 0;
    await migrateAll(roleUrl, (line) => lines.push(line));
    expect(lines).toEqual(SERVICE_SCHEMAS.map((owned) => `${owned.schema}: up to date`));
  });
});

/** A rolling update's race: the migrate Job of a release and `npm start` (or a second Job) on one database at once. */
describe('npm run migrate three times at once on a fresh database', () => {
  let databaseUrl: string;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
  });

  afterAll(() => dropTestDatabase(databaseUrl));

  it('applies each migration once, in one of them, and none fails', async () => {
    const logs: string[][] = [[], [], []];
    await Promise.all(logs.map((lines) => migrateAll(databaseUrl, (line) => lines.push(line))));

    for (const owned of SERVICE_SCHEMAS) {
      const names = (owned.migrations as Array<new () => { name: string }>).map((Migration) => new Migration().name);
      const lines = logs.map((lines) => lines.find((line) => line.startsWith(`${owned.schema}: `)));
      expect(lines.filter((line) => line === `${owned.schema}: up to date`)).toHaveLength(2);
      expect(lines).toContain(`${owned.schema}: applied ${names.join(', ')}`);
      const client = new Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        const { rows } = await client.query(`SELECT name FROM ${owned.schema}.migrations ORDER BY timestamp`);
        expect(rows.map((row: { name: string }) => row.name)).toEqual(names);
      } finally {
        await client.end();
      }
    }
  });
});
