import { planOnIndexes, runServiceMigrations, serviceDataSourceOptions } from '@mailroom/database';
import { createTestDatabase, dropTestDatabase, queryPlan } from '@mailroom/testing';
import { DataSource } from 'typeorm';
import { EMAILS_SCHEMA } from '../src/database/data-source';
import { EMAIL_SUMMARY_UPDATE } from '../src/delivery/attempts.repository';

const BOUND = ' AND e.id = ANY($2::text[])';

/** The plan of an attempt's summary update on an emails table autovacuum has not analyzed yet (a new installation). */
describe('the summary update of recorded attempts against Postgres', () => {
  let databaseUrl: string;
  let dataSource: DataSource;
  const summaries = JSON.stringify([{ id: 'email_1', status: 'delivered', delivered: true, attempted: 1 }]);
  // As recordAttempts runs it.
  const planOf = (sql: string, parameters: unknown[]) => queryPlan(dataSource, sql, parameters, (manager) => planOnIndexes(manager));

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    await runServiceMigrations(databaseUrl, EMAILS_SCHEMA);
    dataSource = await new DataSource(serviceDataSourceOptions(databaseUrl, EMAILS_SCHEMA, { size: 1 })).initialize();
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await dropTestDatabase(databaseUrl);
  });

  it('looks up the emails named, where the join alone scanned the whole primary key', async () => {
    expect(EMAIL_SUMMARY_UPDATE).toContain(BOUND);
    const joinedOnly = await planOf(EMAIL_SUMMARY_UPDATE.replace(BOUND, ''), [summaries]);
    expect(joinedOnly).toMatch(/Index Scan using emails_pkey on emails e/);
    expect(joinedOnly).not.toMatch(/Index Cond/);

    const bounded = await planOf(EMAIL_SUMMARY_UPDATE, [summaries, ['email_1']]);
    expect(bounded).toMatch(/Index Cond: .*id = ANY/);
  });
});
