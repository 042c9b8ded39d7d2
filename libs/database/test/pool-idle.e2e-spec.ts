import { createTestDatabase, dropTestDatabase } from '@mailroom/testing';
import { DataSource } from 'typeorm';
import { serviceDataSourceOptions } from '../src/service-data-source';

/** The node-postgres pool under TypeORM's driver. */
const poolOf = (dataSource: DataSource) => (dataSource.driver as unknown as { master: { totalCount: number } }).master;

/**
 * A lull in traffic leaves the pool's connections open: node-postgres closed
 * an idle one after 10 s, so the first burst after a pause waited for new
 * Postgres backends (fork, authentication, every statement prepared again).
 */
describe('a service pool after a lull', () => {
  let databaseUrl: string;
  let dataSource: DataSource;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    dataSource = await new DataSource(serviceDataSourceOptions(databaseUrl, { schema: 'public', entities: [], migrations: [] }, { size: 1 })).initialize();
  });
  afterAll(async () => {
    jest.useRealTimers();
    await dataSource?.destroy();
    await dropTestDatabase(databaseUrl);
  });

  it('keeps an idle connection for a minute, then lets it go', async () => {
    // Only timers are faked (the pool's idle timer is set when a query hands its connection back); the socket's
    // reads and writes stay real.
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    const [{ pid }] = await dataSource.query('SELECT pg_backend_pid() AS pid');
    jest.advanceTimersByTime(30_000);
    expect(poolOf(dataSource).totalCount).toBe(1);
    expect((await dataSource.query('SELECT pg_backend_pid() AS pid'))[0].pid).toBe(pid);
    jest.advanceTimersByTime(61_000);
    expect(poolOf(dataSource).totalCount).toBe(0);
  });
});
