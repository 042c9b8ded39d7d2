import { EVENT_STREAM } from '@mailroom/contracts';
import { ulid } from '@mailroom/database';
import { eventually, startStack, Stack } from '@mailroom/testing';
import { connect, NatsConnection } from 'nats';
import { WebhookFixtures } from './support/webhook-fixtures';
import { WebhookReceiver } from './support/webhook-receiver';

/** The durable consumers of email.complained: webhooks, analytics and the complaints consumer of the emails app. */
const CONSUMERS = ['webhook-dispatcher', 'emails-analytics', 'emails-complaints'];

/**
 * An outbox relay that published an event but could not mark it published
 * (the database went away for longer than JetStream's two-minute duplicate
 * window) publishes it again, and the stream then holds it twice. Every
 * consumer must apply it once: one webhook delivery, one count in analytics.
 */
describe('an event the stream holds twice', () => {
  let stack: Stack;
  let connection: NatsConnection;
  let fixtures: WebhookFixtures;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    stack = await startStack({ env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_MS: '50' } });
    connection = await connect({ servers: stack.nats.url });
    fixtures = new WebhookFixtures(stack);
    receiver = await new WebhookReceiver().start();
  });

  afterAll(async () => {
    await receiver?.stop();
    await connection?.close();
    await stack?.stop();
  });

  it('reaches the webhook once and counts once in analytics', async () => {
    // A complaint counts in analytics only about an email that went to its recipient: a test email (no domain to verify),
    // delivered before its reader complains.
    const { key } = await stack.issueKey({ name: 'republished', mode: 'test' });
    const api = stack.api.withKey(key);
    const webhook = await fixtures.create(receiver.url(), ['email.complained'], api);
    const sent = await api.post('/v1/emails', { from: 'hi@republished.test', to: 'reader@example.com', subject: 'Twice', text: 'hi', tags: ['twice'] });
    expect(sent.status).toBe(202);
    await eventually(async () => (await api.get(`/v1/emails/${sent.body.id}`)).body.status === 'delivered', 15000);
    const id = `evt_${ulid()}`;
    const body = JSON.stringify({
      id,
      type: 'email.complained',
      createdAt: new Date().toISOString(),
      mode: 'test',
      data: { emailId: sent.body.id, from: 'hi@republished.test', to: ['reader@example.com'], subject: 'Twice', tags: ['twice'], recipient: 'reader@example.com' },
    });
    await connection.jetstream().publish('email.complained', body, { msgID: id });
    // The relay's second publish, past the duplicate window: the same event, stored again.
    const again = await connection.jetstream().publish('email.complained', body);
    expect(again.duplicate).toBe(false);

    // Every consumer has taken and acknowledged both copies.
    const manager = await connection.jetstreamManager();
    await eventually(async () => {
      for (const durable of CONSUMERS) {
        const info = await manager.consumers.info(EVENT_STREAM, durable);
        if (info.delivered.stream_seq < again.seq || info.num_ack_pending > 0) return false;
      }
      return true;
    }, 30_000);

    const [delivery] = await eventually(async () => {
      const list = await fixtures.deliveries(webhook.id, api);
      return list.length === 1 && list[0].status === 'succeeded' && list;
    }, 15_000);
    expect(delivery.eventId).toBe(id);
    expect(receiver.eventIds()).toEqual([id]);

    const analytics = await api.get('/v1/analytics?interval=hour&domain=republished.test');
    expect(analytics.status).toBe(200);
    expect(analytics.body.totals.complained).toBe(1);
    const byTag = await api.get('/v1/analytics?interval=hour&tags=twice');
    expect(byTag.body.totals.complained).toBe(1);
  });
});
