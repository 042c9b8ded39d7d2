import { eventually, metricTotal, Stack, startDatabaseOutage, startStack } from '@mailroom/testing';
import { attemptRecordRetries } from '../src/dispatch/attempt-metrics';
import { EventPublisher } from './support/event-publisher';
import { WebhookFixtures } from './support/webhook-fixtures';
import { WebhookReceiver } from './support/webhook-receiver';

const recordRetriesSoFar = () => metricTotal(attemptRecordRetries);
const LEASE_MS = 3000;

describe('a webhook delivery interrupted by a dispatcher restart or a database outage', () => {
  let stack: Stack;
  let events: EventPublisher;
  let fixtures: WebhookFixtures;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    stack = await startStack({
      apps: ['keys', 'webhook-dispatcher', 'gateway'],
      env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '0s,200ms,400ms', WEBHOOK_POLL_MS: '50', WEBHOOK_LEASE_MS: String(LEASE_MS) },
    });
    events = await EventPublisher.connect(stack.nats.url);
    fixtures = new WebhookFixtures(stack);
    receiver = await new WebhookReceiver().start();
  });

  afterAll(async () => {
    await receiver?.stop();
    await events?.close();
    await stack?.stop();
  });

  it('loses no event: the restarted dispatcher sends it again, with the same event id', async () => {
    receiver.reply = (_, index) => (index === 0 ? 'hold' : { status: 200 });
    const webhook = await fixtures.create(receiver.url(), ['email.delivered']);
    const event = await events.publish('email.delivered');
    await eventually(() => receiver.requests.length === 1);

    await stack.stopApp('webhook-dispatcher');
    // Published while no dispatcher runs: it waits in the stream.
    const whileDown = await events.publish('email.delivered');
    await stack.startApp('webhook-dispatcher');

    await eventually(() => receiver.eventIds().includes(whileDown.id) && receiver.eventIds().filter((id) => id === event.id).length >= 2, 15000);
    expect(new Set(receiver.eventIds())).toEqual(new Set([event.id, whileDown.id]));
    const deliveries = await eventually(async () => {
      const list = await fixtures.deliveries(webhook.id);
      return list.length === 2 && list.every((delivery) => delivery.status === 'succeeded') && list;
    });
    expect(deliveries.map((delivery: any) => delivery.eventId).sort()).toEqual([event.id, whileDown.id].sort());
    receiver.release();
  });

  /**
   * Postgres goes away while the endpoint is answering (a restart, a failover,
   * killed connections). The dispatcher keeps the answer and writes it when
   * the database is back, so the event is not posted a second time when the
   * delivery's lease runs out.
   */
  it('records the answer once the database is back, and posts the event once', () => answerThroughOutage('email.bounced'));

  // Writing the 200 was given up after WEBHOOK_LEASE_MS, and once the database was back the same dispatcher
  // claimed the delivery again (its lease had run out meanwhile) and posted the event a second time.
  it('does the same through an outage longer than the lease', () => answerThroughOutage('email.complained', LEASE_MS + 1500));

  /** Holds the first post of an event of `kind`, takes the database away for at least `lastsMs` as it is answered 200, and checks it was posted once. */
  async function answerThroughOutage(kind: string, lastsMs = 0): Promise<void> {
    // Its own endpoint and event kind, so nothing of another test reaches it.
    const endpoint = await new WebhookReceiver().start();
    try {
      endpoint.reply = (_, index) => (index === 0 ? 'hold' : { status: 200 });
      const webhook = await fixtures.create(endpoint.url(), [kind]);
      const event = await events.publish(kind);
      await eventually(() => endpoint.requests.length === 1);

      const retriesBefore = await recordRetriesSoFar();
      const outage = await startDatabaseOutage(stack.databaseUrl);
      const awaySince = Date.now();
      try {
        endpoint.release();
        // The 200 is in, and writing it has failed at least once against the database being away.
        await eventually(async () => (await recordRetriesSoFar()) > retriesBefore, 10000);
        // The length of the fault, not a wait for something to happen: the database stays away this long.
        await new Promise((resolve) => setTimeout(resolve, awaySince + lastsMs - Date.now()));
      } finally {
        await outage.end();
      }

      const [delivery] = await eventually(async () => {
        const list = await fixtures.deliveries(webhook.id);
        return list.length === 1 && list[0].status === 'succeeded' && list;
      }, 15000);
      expect(delivery).toMatchObject({ eventId: event.id, attempts: 1 });
      expect(endpoint.eventIds()).toEqual([event.id]);
    } finally {
      await endpoint.stop();
    }
  }
});
