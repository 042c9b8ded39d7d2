import { eventually, Stack, startStack } from '@mailroom/testing';
import { webhookAttempts } from '../src/dispatch/attempt-metrics';
import { EventPublisher } from './support/event-publisher';
import { WebhookFixtures } from './support/webhook-fixtures';
import { WebhookReceiver } from './support/webhook-receiver';

/** Far longer than the test may take: a delivery sent again before it ran out was released, not left to expire. */
const LEASE_MS = 120_000;
const TIMEOUT_MS = 60_000;

const abortedSoFar = async () => (await webhookAttempts.get()).values.filter((sample) => sample.labels.outcome === 'aborted').reduce((sum, sample) => sum + sample.value, 0);

/**
 * SIGTERM (app.close()) while a webhook request is open: the dispatcher does
 * not wait for the endpoint (up to WEBHOOK_TIMEOUT_MS), it aborts the request,
 * counts it `aborted` and gives the delivery's lease back, so the next
 * dispatcher sends it at once, under the same event id, and nothing is recorded
 * for the aborted try (README, Graceful shutdown).
 */
describe('a webhook request in flight when the dispatcher shuts down', () => {
  let stack: Stack;
  let events: EventPublisher;
  let fixtures: WebhookFixtures;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    stack = await startStack({
      apps: ['keys', 'webhook-dispatcher', 'gateway'],
      env: {
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_POLL_MS: '50',
        WEBHOOK_LEASE_MS: String(LEASE_MS),
        WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      },
    });
    events = await EventPublisher.connect(stack.nats.url);
    fixtures = new WebhookFixtures(stack);
    receiver = await new WebhookReceiver().start();
  });

  afterAll(async () => {
    receiver?.release();
    await receiver?.stop();
    await events?.close();
    await stack?.stop();
  });

  it('is aborted and released at once, then sent again by the next dispatcher, with nothing recorded for the aborted try', async () => {
    receiver.reply = (_, index) => (index === 0 ? 'hold' : { status: 200 });
    const webhook = await fixtures.create(receiver.url(), ['email.delivered']);
    const event = await events.publish('email.delivered');
    await eventually(() => receiver.requests.length === 1);
    const aborted = await abortedSoFar();

    const stopping = Date.now();
    await stack.stopApp('webhook-dispatcher');
    expect(Date.now() - stopping).toBeLessThan(10_000);
    expect(await abortedSoFar()).toBe(aborted + 1);

    await stack.startApp('webhook-dispatcher');
    await eventually(() => receiver.requests.length === 2, 15_000);
    expect(receiver.eventIds()).toEqual([event.id, event.id]);
    const [delivery] = await eventually(async () => {
      const list = await fixtures.deliveries(webhook.id);
      return list.length === 1 && list[0].status === 'succeeded' && list;
    });
    // Only the answered try counts as an attempt.
    expect(delivery.attempts).toBe(1);
  });
});
