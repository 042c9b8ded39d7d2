import { serviceDataSourceOptions } from '@mailroom/database';
import { isDatabaseUnavailable } from '@mailroom/errors';
import { createTestDatabase, dropTestDatabase, eventually } from '@mailroom/testing';
import { Client } from 'pg';
import { DataSource } from 'typeorm';

/**
 * After a failover, connections opened while a DNS name still pointed at a
 * reader (or at the old primary, now a standby) stay on that server: it keeps
 * them open and answers every write 25006. The pool has to leave such a
 * connection, or the service answers 503 for as long as the connection lives
 * (for ever, under steady traffic, which never lets it idle out), long after
 * the name points at the new primary.
 *
 * Modelled here as a database whose default_transaction_read_only was on when
 * the pool's connection opened and is off again: connections opened from now
 * on reach a writable server, as they do once DNS has moved.
 */
describe('a pooled connection to a read-only server', () => {
  let databaseUrl: string;
  let admin: Client;
  let dataSource: DataSource;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    admin = new Client({ connectionString: Object.assign(new URL(databaseUrl), { pathname: '/postgres' }).toString() });
    await admin.connect();
  });

  afterAll(async () => {
    await admin?.end();
    await dropTestDatabase(databaseUrl);
  });

  /** The pool's one connection opened while the server is read-only, then the failover done: new connections reach a writable server. */
  async function onReadOnlyConnection(refusedWrite: () => Promise<unknown>): Promise<void> {
    const database = new URL(databaseUrl).pathname.slice(1);
    await admin.query(`ALTER DATABASE "${database}" SET default_transaction_read_only = on`);
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [database]);
    await eventually(async () => (await dataSource.query('SHOW default_transaction_read_only'))[0].default_transaction_read_only === 'on' || undefined, 5000);
    const refused = await refusedWrite().catch((error: unknown) => error);
    expect((refused as { code?: string }).code).toBe('25006');
    expect(isDatabaseUnavailable(refused)).toBe(true);
    await admin.query(`ALTER DATABASE "${database}" RESET default_transaction_read_only`);
  }

  beforeEach(async () => {
    dataSource = await new DataSource(serviceDataSourceOptions(databaseUrl, { schema: 'public', entities: [], migrations: [] }, 1)).initialize();
    await dataSource.query('CREATE TABLE IF NOT EXISTS item (id int PRIMARY KEY)');
  });

  afterEach(() => dataSource.destroy());

  it('is left after a write in a transaction it refused, so the next write reaches the writable server', async () => {
    await onReadOnlyConnection(() => dataSource.transaction((manager) => manager.query('INSERT INTO item VALUES (1)')));
    await dataSource.query('INSERT INTO item VALUES (2)');
    expect(await dataSource.query('SELECT id FROM item WHERE id IN (1, 2)')).toEqual([{ id: 2 }]);
  });

  it('is left after a write outside a transaction it refused', async () => {
    await onReadOnlyConnection(() => dataSource.query('INSERT INTO item VALUES (3)'));
    await dataSource.transaction((manager) => manager.query('INSERT INTO item VALUES (4)'));
    expect(await dataSource.query('SELECT id FROM item WHERE id IN (3, 4)')).toEqual([{ id: 4 }]);
  });
});
