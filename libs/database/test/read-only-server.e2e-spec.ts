import { serviceDataSourceOptions } from '@mailroom/database';
import { isDatabaseUnavailable } from '@mailroom/errors';
import { createTestDatabase, dropTestDatabase, eventually, startReadOnlyDatabase } from '@mailroom/testing';
import { DataSource } from 'typeorm';

/**
 * After a failover, connections opened while a DNS name still pointed at a
 * reader (or at the old primary, now a standby) stay on that server: it keeps
 * them open and answers every write 25006. The pool has to leave such a
 * connection, or the service answers 503 for as long as the connection lives
 * (for ever, under steady traffic, which never lets it idle out), long after
 * the name points at the new primary.
 *
 * Modelled as a database whose default_transaction_read_only was on when the
 * pool's one connection opened and is off again (startReadOnlyDatabase's end
 * leaves that connection open): connections opened from then on reach a
 * writable server, as they do once DNS has moved.
 */
describe('a pooled connection to a read-only server', () => {
  let databaseUrl: string;
  let dataSource: DataSource;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
  });

  afterAll(() => dropTestDatabase(databaseUrl));

  beforeEach(async () => {
    dataSource = await new DataSource(serviceDataSourceOptions(databaseUrl, { schema: 'public', entities: [], migrations: [] }, { size: 1 })).initialize();
    await dataSource.query('CREATE TABLE IF NOT EXISTS item (id int PRIMARY KEY)');
  });

  afterEach(() => dataSource.destroy());

  /** Refuses `write` on the pool's connection, opened while the server was read-only, then ends the failover. */
  async function refusedOnReadOnlyConnection(write: () => Promise<unknown>): Promise<void> {
    const standby = await startReadOnlyDatabase(databaseUrl);
    try {
      await eventually(async () => (await dataSource.query('SHOW default_transaction_read_only'))[0].default_transaction_read_only === 'on' || undefined, 5000);
      const refused = await write().catch((error: unknown) => error);
      expect((refused as { code?: string }).code).toBe('25006');
      expect(isDatabaseUnavailable(refused)).toBe(true);
    } finally {
      await standby.end();
    }
  }

  it('is left after a write in a transaction it refused, so the next write reaches the writable server', async () => {
    await refusedOnReadOnlyConnection(() => dataSource.transaction((manager) => manager.query('INSERT INTO item VALUES (1)')));
    await dataSource.query('INSERT INTO item VALUES (2)');
    expect(await dataSource.query('SELECT id FROM item WHERE id IN (1, 2)')).toEqual([{ id: 2 }]);
  });

  it('is left after a write outside a transaction it refused', async () => {
    await refusedOnReadOnlyConnection(() => dataSource.query('INSERT INTO item VALUES (3)'));
    await dataSource.transaction((manager) => manager.query('INSERT INTO item VALUES (4)'));
    expect(await dataSource.query('SELECT id FROM item WHERE id IN (3, 4)')).toEqual([{ id: 4 }]);
  });
});
