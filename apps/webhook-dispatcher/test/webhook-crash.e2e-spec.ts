import { eventually, Stack, startStack } from '@mailroom/testing';
import { EventPublisher } from './support/event-publisher';
import { WebhookFixtures } from './support/webhook-fixtures';
import { WebhookReceiver } from './support/webhook-receiver';

describe('webhook-dispatcher stopped in the middle of a delivery', () => {
  let stack: Stack;
  let events: EventPublisher;
  let fixtures: WebhookFixtures;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    stack = await startStack({
      apps: ['keys', 'webhook-dispatcher', 'gateway'],
      env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '0s,200ms,400ms', WEBHOOK_POLL_MS: '50' },
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
});
