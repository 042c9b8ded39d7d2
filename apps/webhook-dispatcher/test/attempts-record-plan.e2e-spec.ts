import { planOnIndexes } from '@mailroom/database';
import { queryPlan } from '@mailroom/testing';
import { ATTEMPTS_RECORD } from '../src/dispatch/dispatch.repository';
import { startWebhooksDatabase, WebhooksDatabase } from './support/webhooks-database';

const BOUND = ' AND d.id = ANY($2::text[])';

/** The plan of recording attempts on a deliveries table autovacuum has not analyzed yet (a new installation, a first burst). */
describe('recording webhook delivery attempts against Postgres', () => {
  let database: WebhooksDatabase;
  const states = JSON.stringify([{ id: 'dlv_1', owner: 'dispatcher-1', attempt: 1, status: 'succeeded' }]);

  beforeAll(async () => {
    database = await startWebhooksDatabase();
  });

  afterAll(async () => {
    await database?.stop();
  });

  it('looks up the deliveries named, where the join alone read the whole table', async () => {
    expect(ATTEMPTS_RECORD).toContain(BOUND);
    const joinedOnly = await queryPlan(database.dataSource, ATTEMPTS_RECORD.replace(BOUND, ''), [states]);
    expect(joinedOnly).toMatch(/Seq Scan on deliveries d/);

    // As recordAttempts runs it.
    const recorded = await queryPlan(database.dataSource, ATTEMPTS_RECORD, [states, ['dlv_1']], (manager) => planOnIndexes(manager));
    expect(recorded).not.toMatch(/Seq Scan on deliveries/);
    expect(recorded).toMatch(/Index Cond: .*id = ANY/);
  });
});
