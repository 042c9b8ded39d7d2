import { isDatabaseUnavailable } from '@mailroom/errors';
import { createTestDatabase, dropTestDatabase, eventually, StallingProxy, startStallingProxy } from '@mailroom/testing';
import { Client, Pool } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { serviceDataSourceOptions } from '../src/service-data-source';

const APPLICATION = 'mailroom-public';

/**
 * Postgres shuts down (a restart, a failover) just as a new pooled connection
 * finishes its startup, so the client reads ReadyForQuery and the FATAL 57P01
 * "terminating connection due to administrator command" in one burst. The
 * pool has handed the connection over on ReadyForQuery and stopped listening
 * for its errors; TypeORM starts listening a few promise steps later, after
 * the FATAL was emitted to nobody: an 'error' event without a listener ends a
 * Node process. Seen three times in some 300 restarts of a loaded stack.
 */
describe('a new pooled connection killed as its startup completes', () => {
  let databaseUrl: string;
  let proxy: StallingProxy;
  let dataSource: DataSource;
  let admin: Client;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    admin = new Client({ connectionString: databaseUrl });
    await admin.connect();
    proxy = await startStallingProxy(databaseUrl);
    dataSource = await new DataSource(serviceDataSourceOptions(proxy.url, { schema: 'public', entities: [], migrations: [] }, { size: 1 })).initialize();
  });

  afterAll(async () => {
    proxy?.resume();
    await dataSource?.destroy();
    await proxy?.close();
    await admin?.end();
    await dropTestDatabase(databaseUrl);
  });

  const backends = async (state?: string) =>
    (await admin.query('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1 AND ($2::text IS NULL OR state = $2)', [APPLICATION, state ?? null])).rows.map(
      (row: { pid: number }) => row.pid,
    );

  it('fails the query that wanted it as the database being unavailable, and the process and pool go on', async () => {
    // The pool's one connection goes, so the next query needs a new one.
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1', [APPLICATION]);
    await eventually(() => pool(dataSource).totalCount === 0);

    proxy.holdReplies();
    const query = dataSource.query('SELECT 1').catch((error: unknown) => error);
    // Started up and waiting for its first query; its ReadyForQuery is held at the proxy.
    const [pid] = await eventually(async () => ((await backends('idle')).length === 1 ? backends('idle') : undefined));
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    await eventually(async () => (await backends()).length === 0);
    proxy.resume();

    expect(isDatabaseUnavailable(await query)).toBe(true);
    expect(await dataSource.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });
});

function pool(dataSource: DataSource): Pool {
  return (dataSource.driver as PostgresDriver).master as Pool;
}
