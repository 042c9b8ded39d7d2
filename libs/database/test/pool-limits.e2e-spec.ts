import { isDatabaseUnavailable } from '@mailroom/errors';
import { createTestDatabase, dropTestDatabase, StallingProxy, startStallingProxy } from '@mailroom/testing';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { serviceDataSourceOptions } from '../src/service-data-source';

const ACQUIRE_TIMEOUT_MS = 500;

/**
 * Postgres stops answering without closing anything (a blackholed host, a
 * network partition). A query that cannot get a connection in time must fail
 * as "database unavailable" (a 503 to retry) rather than wait in the pool for
 * as long as the outage lasts and then run, long after its caller was told
 * 503: with no limit, every request in the meantime piled up and was written
 * once the network came back.
 */
describe('a service pool while Postgres does not answer', () => {
  let databaseUrl: string;
  let proxy: StallingProxy;
  let dataSource: DataSource;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    const setup = new Client({ connectionString: databaseUrl });
    await setup.connect();
    await setup.query('CREATE TABLE item (id int PRIMARY KEY)');
    await setup.end();
  });

  beforeEach(async () => {
    proxy = await startStallingProxy(databaseUrl);
  });

  afterEach(async () => {
    proxy.resume();
    await dataSource?.destroy();
    await proxy.close();
  });

  afterAll(async () => {
    await dropTestDatabase(databaseUrl);
  });

  const open = (poolSize: number) =>
    new DataSource(serviceDataSourceOptions(proxy.url, { schema: 'public', entities: [], migrations: [] }, { size: poolSize, acquireTimeoutMs: ACQUIRE_TIMEOUT_MS })).initialize();

  /**
   * Stalls Postgres with `hung` in flight on one of `poolSize` connections, runs `query`, and answers how it
   * failed and after how long; then lets Postgres answer again and waits for `hung`.
   */
  async function failureBehindHungQuery(poolSize: number, hung: string, query: string): Promise<{ error: unknown; afterMs: number }> {
    dataSource = await open(poolSize);
    proxy.stall();
    const inFlight = dataSource.query(hung);
    const started = Date.now();
    const error = await dataSource.query(query).then(
      () => new Error('the query ran while Postgres did not answer'),
      (failure: unknown) => failure,
    );
    const afterMs = Date.now() - started;
    proxy.resume();
    await inFlight;
    return { error, afterMs };
  }

  const itemIds = async () => (await dataSource.query('SELECT id FROM item ORDER BY id')).map((row: { id: number }) => row.id);

  it('fails a query waiting for a pooled connection after the acquire timeout, and never runs it later', async () => {
    // The one connection is taken by a statement that hangs on it, as every one in flight does in a blackhole.
    const { error, afterMs } = await failureBehindHungQuery(1, 'INSERT INTO item VALUES (1)', 'INSERT INTO item VALUES (2)');
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(afterMs).toBeLessThan(ACQUIRE_TIMEOUT_MS * 4);
    expect(await itemIds()).toEqual([1]);
    await dataSource.query('DELETE FROM item');
  });

  it('fails a query whose new connection gets no answer after the same timeout', async () => {
    // The pool has room for a second connection; the stalled host accepts it and never says a word.
    const { error, afterMs } = await failureBehindHungQuery(2, 'SELECT 1', 'INSERT INTO item VALUES (3)');
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(afterMs).toBeLessThan(ACQUIRE_TIMEOUT_MS * 4);
    expect(await itemIds()).toEqual([]);
  });
});
