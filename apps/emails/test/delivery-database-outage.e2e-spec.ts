import { Client } from 'pg';
import { DatabaseOutage, eventually, metricTotal, startDatabaseOutage, startReadOnlyDatabase } from '@mailroom/testing';
import { outcomeRecordRetries } from '../src/delivery/delivery-metrics';
import { DeliveryHarness, emailReaching, eventsOf, routeMailTo, startDeliveryHarness, verifiedDomain } from './support/delivery-harness';

const retriesSoFar = () => metricTotal(outcomeRecordRetries);
const LEASE_MS = 3000;

/**
 * Postgres goes away between the SMTP server's 250 and the worker's record of
 * it (a restart, a failover, killed connections). The worker keeps the
 * outcome and writes it when the database is back, so the message is not
 * sent a second time when its lease runs out.
 */
describe('delivery while the database is briefly unavailable', () => {
  let harness: DeliveryHarness;

  beforeAll(async () => {
    harness = await startDeliveryHarness({ DELIVERY_LEASE_MS: String(LEASE_MS) });
    routeMailTo(harness.dns, 'example.test');
    await verifiedDomain(harness, 'acme.test');
  }, 60000);

  afterAll(async () => {
    await harness?.stop();
  });

  /**
   * Holds the next message's DATA reply, takes the database away as `outage` does until writing the 250 has
   * failed `failures` times and at least `lastsMs` have passed, and checks the message went out once.
   */
  async function sendThrough(outage: (databaseUrl: string, spare: number[]) => Promise<DatabaseOutage>, to: string, failures = 1, lastsMs = 0): Promise<void> {
    const held = harness.smtp.holdNextData();
    const sent = await harness.stack.api.post('/v1/emails', { from: 'hi@acme.test', to, subject: 'Outage', text: 'x' });
    expect(sent.status).toBe(202);
    await held.arrived;

    const retriesBefore = await retriesSoFar();
    const { rows: [own] } = await harness.db.query('SELECT pg_backend_pid() AS pid');
    const away = await outage(harness.stack.databaseUrl, [own.pid]);
    const awaySince = Date.now();
    try {
      held.release();
      // The 250 is in, and writing it has failed against the database being away.
      await eventually(async () => (await retriesSoFar()) >= retriesBefore + failures, 10000);
      // The length of the fault, not a wait for something to happen: the database stays away this long.
      await new Promise((resolve) => setTimeout(resolve, awaySince + lastsMs - Date.now()));
    } finally {
      await away.end();
    }

    const email = await emailReaching(harness.stack, harness.stack.rootKey, sent.body.id, ['delivered'], 15000);
    expect(email.recipients[0]).toMatchObject({ status: 'delivered', attempts: 1, smtpCode: 250 });
    expect(harness.smtp.messagesFor(to)).toHaveLength(1);
  }

  it('records the outcome once the database is back, and sends the message once', () => sendThrough(startDatabaseOutage, 'outage@example.test'));

  // Writing the 250 was given up after DELIVERY_LEASE_MS and the email left the worker's in-flight set: once the
  // database was back, the same process claimed it again (its lease had run out meanwhile) and sent it a second time.
  it('keeps the outcome through an outage longer than the lease, and sends the message once', () => sendThrough(startDatabaseOutage, 'long-outage@example.test', 1, LEASE_MS + 1500));

  // Twice: the first write may fail only on a pooled connection the switch to read-only terminated; the second reaches the standby.
  it('does the same while the database is a read-only standby (a failover under way)', () => sendThrough(startReadOnlyDatabase, 'standby@example.test', 2));
});

/**
 * The connection that reads a claim's due recipients is lost (a failover, a
 * killed backend). The read is part of the claim's transaction, so the claim
 * rolls back with it and the email is due again at once, instead of waiting
 * under a lease nobody is using until it runs out.
 */
describe('a claim whose recipient read fails', () => {
  let harness: DeliveryHarness;

  beforeAll(async () => {
    // A lease far longer than the test waits: an email left under a stale lease would not go out in time.
    harness = await startDeliveryHarness({ DELIVERY_LEASE_MS: '60000' });
    routeMailTo(harness.dns, 'example.test');
    await verifiedDomain(harness, 'acme.test');
  }, 60000);

  afterAll(async () => {
    await harness?.stop();
  });

  it('is given up with the read, so the email goes out at once and once', async () => {
    const sent = await harness.stack.api.post('/v1/emails', {
      from: 'hi@acme.test',
      to: 'claimed@example.test',
      subject: 'Claim',
      text: 'x',
      scheduledAt: new Date(Date.now() + 3600_000).toISOString(),
    });
    expect(sent.status).toBe(202);
    // Made due below, once the table is held: scheduled a fixed time ahead, the worker could claim the email and
    // read its recipients before a loaded machine got to the lock, and the test would wait for a read that was over.
    const comesDue = () => harness.db.query(`UPDATE emails.emails SET next_attempt_at = now() WHERE id = $1`, [sent.body.id]);

    // Holding the recipients table makes the worker's read wait when the email comes due; then its connection is cut.
    const locker = new Client({ connectionString: harness.stack.databaseUrl });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE emails.recipients IN ACCESS EXCLUSIVE MODE');
      await comesDue();
      const waitingRead = () =>
        harness.db
          .query(`SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%FROM emails.recipients r%unnest%'`)
          .then(({ rows }) => rows[0]?.pid as number | undefined);
      const pid = await eventually(waitingRead, 10000);
      await harness.db.query('SELECT pg_terminate_backend($1)', [pid]);
      // The worker claims the email again and waits on the table once more: the first claim did not keep it.
      await eventually(async () => {
        const again = await waitingRead();
        return again !== undefined && again !== pid;
      }, 10000);
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }

    const email = await emailReaching(harness.stack, harness.stack.rootKey, sent.body.id, ['delivered'], 10000);
    expect(email.recipients[0]).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(harness.smtp.messagesFor('claimed@example.test')).toHaveLength(1);
    const queued = (await eventsOf(harness.db, sent.body.id)).filter((event) => event.type === 'email.queued');
    expect(queued).toHaveLength(1);
  });
});
