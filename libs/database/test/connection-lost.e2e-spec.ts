import { isDatabaseUnavailable } from '@mailroom/errors';
import { createTestDatabase, dropTestDatabase, eventually } from '@mailroom/testing';
import { DataSource, EntityManager } from 'typeorm';

/**
 * A transaction whose connection is killed between two statements, as
 * pg_terminate_backend, a failover or a Postgres restart does. TypeORM releases
 * the query runner on the connection's 'error' event, so the next statement
 * fails with its "already released" error rather than the socket's: that must
 * still read as "the database is unavailable" (a 503 to retry), not as a bug.
 */
describe('a transaction that loses its connection', () => {
  let databaseUrl: string;
  let dataSource: DataSource;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    dataSource = await new DataSource({ type: 'postgres', url: databaseUrl, poolSize: 4 }).initialize();
    await dataSource.query('CREATE TABLE item (id int PRIMARY KEY)');
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await dropTestDatabase(databaseUrl);
  });

  /** Runs `next` in a transaction after its backend has been terminated and TypeORM has released the runner. */
  async function afterConnectionKilled(next: (manager: EntityManager) => Promise<unknown>): Promise<unknown> {
    try {
      await dataSource.transaction(async (manager) => {
        await manager.query('INSERT INTO item VALUES (1)');
        const [{ pid }] = await manager.query('SELECT pg_backend_pid() AS pid');
        await dataSource.query('SELECT pg_terminate_backend($1)', [pid]);
        await eventually(() => manager.queryRunner!.isReleased, 5000);
        await next(manager);
      });
    } catch (error) {
      return error;
    }
    throw new Error('the transaction succeeded on a killed connection');
  }

  it('fails the next EntityManager.query with an error classified as the database being unavailable', async () => {
    const error = await afterConnectionKilled((manager) => manager.query('INSERT INTO item VALUES (2)'));
    expect((error as Error).name).toBe('QueryRunnerProviderAlreadyReleasedError');
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it('fails the next query through the runner itself the same way', async () => {
    const error = await afterConnectionKilled((manager) => manager.queryRunner!.query('INSERT INTO item VALUES (2)'));
    expect((error as Error).name).toBe('QueryRunnerAlreadyReleasedError');
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it('commits nothing of the broken transaction, and the pool serves the next one', async () => {
    await afterConnectionKilled((manager) => manager.query('INSERT INTO item VALUES (2)'));
    await dataSource.transaction((manager) => manager.query('INSERT INTO item VALUES (3)'));
    const rows = await dataSource.query('SELECT id FROM item ORDER BY id');
    expect(rows.map((row: { id: number }) => row.id)).toEqual([3]);
  });
});
