import { EVENT_STREAM } from '@mailroom/contracts';
import { eventually, startStack, Stack } from '@mailroom/testing';
import { connect } from 'nats';
import { EventPublisher } from './support/event-publisher';
import { WebhookFixtures } from './support/webhook-fixtures';
import { WebhookReceiver } from './support/webhook-receiver';

/** The dispatcher's consumer across a NATS restart and a stream made anew: events published afterwards still reach webhooks. */
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

  it('takes up again when the stream was deleted and made anew (a NATS server back without its store)', async () => {
    const endpoint = await new WebhookReceiver().start();
    try {
      // After the restart above, every app has its NATS connection back.
      for (const app of ['gateway', 'webhook-dispatcher'] as const) {
        await eventually(async () => (await fetch(`${stack.opsUrl(app)}/health/ready`)).status === 200, 30_000);
      }
      // Ready is per connection; on a loaded machine the first RPC after the restart has still timed out (503, which
      // the README calls safe to retry), so the webhook is created the way a client would: again until it is.
      await eventually(() => fixtures.create(endpoint.url(), ['email.failed']).then(() => true, () => false), 30_000);
      const connection = await connect({ servers: stack.nats.url });
      try {
        await (await connection.jetstreamManager()).streams.delete(EVENT_STREAM);
      } finally {
        await connection.close();
      }
      // As an outbox relay makes it again when its publishes find no stream.
      const publisher = await EventPublisher.connect(stack.nats.url);
      try {
        const event = await publisher.publish('email.failed');
        await eventually(() => endpoint.eventIds().includes(event.id), 60_000);
      } finally {
        await publisher.close();
      }
    } finally {
      await endpoint.stop();
    }
  }, 90_000);
});
