import { planOnIndexes, runServiceMigrations, serviceDataSourceOptions } from '@mailroom/database';
import { createTestDatabase, dropTestDatabase, queryPlan } from '@mailroom/testing';
import { DataSource } from 'typeorm';
import { WEBHOOKS_SCHEMA } from '../src/database/data-source';
import { ATTEMPTS_RECORD } from '../src/dispatch/dispatch.repository';

const BOUND = ' AND d.id = ANY($2::text[])';

/** The plan of recording attempts on a deliveries table autovacuum has not analyzed yet (a new installation, a first burst). */
describe('recording webhook delivery attempts against Postgres', () => {
  let databaseUrl: string;
  let dataSource: DataSource;
  const states = JSON.stringify([{ id: 'dlv_1', owner: 'dispatcher-1', attempt: 1, status: 'succeeded' }]);

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    await runServiceMigrations(databaseUrl, WEBHOOKS_SCHEMA);
    dataSource = await new DataSource(serviceDataSourceOptions(databaseUrl, WEBHOOKS_SCHEMA, 1)).initialize();
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await dropTestDatabase(databaseUrl);
  });

  it('looks up the deliveries named, where the join alone read the whole table', async () => {
    expect(ATTEMPTS_RECORD).toContain(BOUND);
    const joinedOnly = await queryPlan(dataSource, ATTEMPTS_RECORD.replace(BOUND, ''), [states]);
    expect(joinedOnly).toMatch(/Seq Scan on deliveries d/);

    // As recordAttempts runs it.
    const recorded = await queryPlan(dataSource, ATTEMPTS_RECORD, [states, ['dlv_1']], (manager) => planOnIndexes(manager));
    expect(recorded).not.toMatch(/Seq Scan on deliveries/);
    expect(recorded).toMatch(/Index Cond: .*id = ANY/);
  });
});
