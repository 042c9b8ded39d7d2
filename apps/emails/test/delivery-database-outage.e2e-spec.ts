import { eventually, metricTotal, startDatabaseOutage } from '@mailroom/testing';
import { outcomeRecordRetries } from '../src/delivery/delivery-metrics';
import { DeliveryHarness, emailReaching, routeMailTo, startDeliveryHarness, verifiedDomain } from './support/delivery-harness';

const retriesSoFar = () => metricTotal(outcomeRecordRetries);

/**
 * Postgres goes away between the SMTP server's 250 and the worker's record of
 * it (a restart, a failover, killed connections). The worker keeps the
 * outcome and writes it when the database is back, so the message is not
 * sent a second time when its lease runs out.
 */
describe('delivery while the database is briefly unavailable', () => {
  let harness: DeliveryHarness;

  beforeAll(async () => {
    harness = await startDeliveryHarness({ DELIVERY_LEASE_MS: '3000' });
    routeMailTo(harness.dns, 'example.test');
    await verifiedDomain(harness, 'acme.test');
  }, 60000);

  afterAll(async () => {
    await harness?.stop();
  });

  it('records the outcome once the database is back, and sends the message once', async () => {
    const held = harness.smtp.holdNextData();
    const sent = await harness.stack.api.post('/v1/emails', { from: 'hi@acme.test', to: 'outage@example.test', subject: 'Outage', text: 'x' });
    expect(sent.status).toBe(202);
    await held.arrived;

    const retriesBefore = await retriesSoFar();
    const { rows: [own] } = await harness.db.query('SELECT pg_backend_pid() AS pid');
    const outage = await startDatabaseOutage(harness.stack.databaseUrl, [own.pid]);
    try {
      held.release();
      // The 250 is in, and writing it has failed at least once against the database being away.
      await eventually(async () => (await retriesSoFar()) > retriesBefore, 10000);
    } finally {
      await outage.end();
    }

    const email = await emailReaching(harness.stack, harness.stack.rootKey, sent.body.id, ['delivered'], 15000);
    expect(email.recipients[0]).toMatchObject({ status: 'delivered', attempts: 1, smtpCode: 250 });
    expect(harness.smtp.messagesFor('outage@example.test')).toHaveLength(1);
  });
});
