import { eventually, startStack, Stack } from '@mailroom/testing';
import { EventPublisher } from './support/event-publisher';
import { WebhookFixtures } from './support/webhook-fixtures';
import { WebhookReceiver } from './support/webhook-receiver';

/** The dispatcher's consumer across a NATS restart (its store kept): events published afterwards still reach webhooks. */
describe('the webhook dispatcher across a NATS restart', () => {
  let stack: Stack;
  let fixtures: WebhookFixtures;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    stack = await startStack({
      apps: ['keys', 'webhook-dispatcher', 'gateway'],
      env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_MS: '50' },
    });
    fixtures = new WebhookFixtures(stack);
    receiver = await new WebhookReceiver().start();
  });

  afterAll(async () => {
    await receiver?.stop();
    await stack?.stop();
  });

  it('delivers the event published before NATS went down once, and the one published after it came back', async () => {
    await fixtures.create(receiver.url(), ['email.delivered']);
    const before = await EventPublisher.connect(stack.nats.url);
    const first = await before.publish('email.delivered');
    await eventually(() => receiver.eventIds().includes(first.id), 15_000);
    await before.close();

    // Down long enough for the dispatcher to notice (unready), as a NATS upgrade or node move would be.
    await stack.nats.stop();
    await eventually(async () => (await fetch(`${stack.opsUrl('webhook-dispatcher')}/health/ready`)).status === 503, 30_000);
    await stack.nats.restart();
    const after = await EventPublisher.connect(stack.nats.url);
    try {
      const second = await after.publish('email.delivered');
      await eventually(() => receiver.eventIds().includes(second.id), 60_000);
      expect(receiver.eventIds()).toEqual([first.id, second.id]);
    } finally {
      await after.close();
    }
  });
});
