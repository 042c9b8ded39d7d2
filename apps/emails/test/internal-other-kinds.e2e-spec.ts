import { EVENT_STREAM } from '@mailroom/contracts';
import { ulid } from '@mailroom/database';
import { eventually, startStack, Stack } from '@mailroom/testing';
import { connect, NatsConnection } from 'nats';
import { WebhookReceiver } from '../../webhook-dispatcher/test/support/webhook-receiver';

/**
 * An internal service may publish only email.bounced and email.complained
 * (README, Publishing from an internal service). One allowed more, publishing
 * a kind Mailroom writes itself or one it does not define, changes no email,
 * yet counts in analytics and reaches webhooks, as the README says.
 */
describe('an event of another kind published by an internal service', () => {
  let stack: Stack;
  let connection: NatsConnection;
  let all: WebhookReceiver;
  let opensOnly: WebhookReceiver;

  beforeAll(async () => {
    stack = await startStack({ env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_MS: '50' } });
    connection = await connect({ servers: stack.nats.url });
    all = await new WebhookReceiver().start();
    opensOnly = await new WebhookReceiver().start();
  });
  afterAll(async () => {
    await all?.stop();
    await opensOnly?.stop();
    await connection?.close();
    await stack?.stop();
  });

  it('changes no email, counts in analytics as Mailroom’s own would, and reaches the webhooks of its kind, or of `*` for a kind Mailroom does not define', async () => {
    const { key } = await stack.issueKey({ name: 'other-kinds', mode: 'test' });
    const api = stack.api.withKey(key);
    expect((await api.post('/v1/webhooks', { url: opensOnly.url(), events: ['email.opened'] })).status).toBe(201);
    expect((await api.post('/v1/webhooks', { url: all.url(), events: ['*'] })).status).toBe(201);
    const sent = await api.post('/v1/emails', { from: 'hi@other-kinds.test', to: 'failed@example.com', subject: 'Hi', text: 'hi', tags: ['other'] });
    expect(sent.status).toBe(202);
    await eventually(async () => (await api.get(`/v1/emails/${sent.body.id}`)).body.status === 'failed', 15000);
    // The email turns failed before its email.failed event leaves the outbox; only once a webhook has it is the
    // event surely in the stream ahead of the ones published below, so that draining the consumers counts it.
    await eventually(() => all.bodies().some((body) => body.type === 'email.failed' && body.data?.emailId === sent.body.id), 15000);

    const publish = async (type: string, data: Record<string, unknown>) => {
      const id = `evt_${ulid()}`;
      const envelope = { id, type, createdAt: new Date().toISOString(), mode: 'test', data };
      return { id, seq: (await connection.jetstream().publish(type, JSON.stringify(envelope), { msgID: id })).seq };
    };
    const delivered = await publish('email.delivered', { emailId: sent.body.id, recipient: 'failed@example.com', smtp: { code: 250, reply: '250 ok' } });
    const opened = await publish('email.opened', { emailId: sent.body.id, first: true });
    const unknown = await publish('email.archived', { emailId: sent.body.id });

    const manager = await connection.jetstreamManager();
    await eventually(async () => {
      for (const durable of ['webhook-dispatcher', 'emails-analytics']) {
        const info = await manager.consumers.info(EVENT_STREAM, durable);
        if (info.delivered.stream_seq < unknown.seq || info.num_ack_pending > 0) return false;
      }
      return true;
    }, 30000);

    const email = (await api.get(`/v1/emails/${sent.body.id}`)).body;
    expect(email).toMatchObject({ status: 'failed', recipients: [expect.objectContaining({ status: 'failed' })] });
    const totals = (await api.get('/v1/analytics?interval=hour&domain=other-kinds.test&tags=other')).body.totals;
    expect(totals).toMatchObject({ sent: 1, delivered: 1, failed: 1, opens: 1, uniqueOpens: 1 });

    const published = [delivered.id, opened.id, unknown.id];
    await eventually(() => published.every((id) => all.eventIds().includes(id)) && opensOnly.eventIds().includes(opened.id), 15000);
    expect(all.eventIds().filter((id) => published.includes(id)).sort()).toEqual([...published].sort());
    expect(opensOnly.eventIds()).toEqual([opened.id]);
  });
});
