import { createHmac, timingSafeEqual } from 'node:crypto';
import { request } from 'node:http';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { connect } from 'nats';
import { trackingTokensFromConfig } from '@mailroom/auth';
import { EVENT_ENVELOPE_SCHEMA } from '@mailroom/contracts';
import { ulid } from '@mailroom/database';
import { ApiClient, eventually, startStack, Stack } from '@mailroom/testing';
import { WebhookReceiver } from './support/webhook-receiver';

/** A GET with no User-Agent header at all, as some mail proxies fetch images; fetch() always sends one. */
function getWithoutUserAgent(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request(url, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    })
      .on('error', reject)
      .end();
  });
}

/** The README's recipe, written here with node:crypto alone rather than with Mailroom's own helper. */
function signedBy(secret: string, rawBody: string, header: string): boolean {
  const timestamp = /(?:^|,)t=(\d+)/.exec(header)?.[1];
  if (!timestamp) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest();
  return [...header.matchAll(/(?:^|,)v1=([0-9a-f]{64})/g)].some(([, hex]) => timingSafeEqual(expected, Buffer.from(hex, 'hex')));
}

describe('webhook payloads and the published event schema', () => {
  let stack: Stack;
  let receiver: WebhookReceiver;
  const tokens = trackingTokensFromConfig({ NODE_ENV: 'test', ENCRYPTION_KEY: null });

  beforeAll(async () => {
    stack = await startStack({ env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_MS: '50' } });
    receiver = await new WebhookReceiver().start();
  });

  afterAll(async () => {
    await receiver?.stop();
    await stack?.stop();
  });

  async function send(api: ApiClient, to: string | string[], extra: Record<string, unknown> = {}): Promise<string> {
    const response = await api.post('/v1/emails', Object.assign({ from: 'Acme <hello@acme.test>', to, subject: 'Schema', html: '<p>hi</p>', tags: ['schema'] }, extra));
    expect(response.status).toBe(202);
    return response.body.id;
  }

  it('every event a webhook receives, of every kind, validates against EVENT_ENVELOPE_SCHEMA and carries a signature node:crypto verifies', async () => {
    const { key } = await stack.issueKey({ name: 'schema', mode: 'test' });
    const api = stack.api.withKey(key);
    const webhook = (await api.post('/v1/webhooks', { url: receiver.url(), events: ['*'] })).body;

    const delivered = await send(api, 'delivered@example.com');
    for (const address of ['bounced', 'complained', 'failed', 'suppressed', 'delayed']) await send(api, `${address}@example.com`);
    const cancelled = await send(api, 'delivered@example.com', { scheduledAt: new Date(Date.now() + 3_600_000).toISOString() });
    expect((await api.post(`/v1/emails/${cancelled}/cancel`)).status).toBe(200);
    // An open and a click from a client that sends no User-Agent.
    expect(await getWithoutUserAgent(`${stack.baseUrl}/t/o/${tokens.sign({ emailId: delivered, kind: 'open' })}.gif`)).toBe(200);
    expect(await getWithoutUserAgent(`${stack.baseUrl}/t/c/${tokens.sign({ emailId: delivered, kind: 'click', url: 'https://acme.test/a' })}`)).toBe(302);
    // A complaint an internal feedback-loop processor publishes, exactly as the README shows.
    const nats = await connect({ servers: stack.nats.url });
    const complaintId = `evt_${ulid()}`;
    await nats.jetstream().publish(
      'email.complained',
      JSON.stringify({ id: complaintId, type: 'email.complained', createdAt: new Date().toISOString(), mode: 'test', data: { emailId: delivered, recipient: 'delivered@example.com', feedback: 'ARF report' } }),
      { msgID: complaintId },
    );
    // An internal service's event under an id of its own (the README admits any printable one), and one of a kind
    // Mailroom does not define, which a webhook for * receives too.
    const ownId = `dsn-${ulid().toLowerCase()}`;
    await nats.jetstream().publish(
      'email.bounced',
      JSON.stringify({ id: ownId, type: 'email.bounced', createdAt: new Date().toISOString(), mode: 'test', data: { recipient: 'gone@example.com', smtp: { code: 550 } } }),
      { msgID: ownId },
    );
    const otherKindId = `evt_${ulid()}`;
    await nats.jetstream().publish(
      'email.archived',
      JSON.stringify({ id: otherKindId, type: 'email.archived', createdAt: new Date().toISOString(), mode: 'test', data: { emailId: delivered, folder: 'old' } }),
      { msgID: otherKindId },
    );
    await nats.close();
    // On the suppression list when accepted, beside a recipient who was not: an email.suppressed of its own.
    expect((await api.post('/v1/suppressions', { email: 'listed@example.com' })).status).toBe(201);
    // Not delivered@example.com: the complaint above puts that address on the list too, once it is consumed.
    const partly = await send(api, ['listed@example.com', 'delivered+partly@example.com']);
    expect((await api.post(`/v1/webhooks/${webhook.id}/test`)).status).toBe(202);

    const kinds = ['email.queued', 'email.scheduled', 'email.cancelled', 'email.delivered', 'email.bounced', 'email.complained', 'email.failed', 'email.suppressed', 'email.delivery_delayed', 'email.opened', 'email.clicked', 'webhook.test'];
    const suppressedOf = (emailId: string) => receiver.bodies().filter((body) => body.type === 'email.suppressed' && body.data.emailId === emailId);
    await eventually(
      () => kinds.every((kind) => receiver.bodies().some((body) => body.type === kind)) && [complaintId, ownId, otherKindId].every((id) => receiver.eventIds().includes(id)) && suppressedOf(partly).length > 0,
      30000,
    );
    expect(suppressedOf(partly).map((body) => body.data.recipient)).toEqual(['listed@example.com']);

    const ajv = new Ajv2020({ allErrors: true });
    addFormats(ajv);
    const validate = ajv.compile(EVENT_ENVELOPE_SCHEMA);
    const invalid = receiver
      .bodies()
      .map((body) => ({ type: body.type, data: body.data, errors: validate(body) ? null : ajv.errorsText(validate.errors) }))
      .filter((checked) => checked.errors !== null);
    expect(invalid).toEqual([]);

    for (const received of receiver.requests) {
      expect(signedBy(webhook.secret, received.rawBody, String(received.headers['service-signature']))).toBe(true);
      expect(received.headers['service-event-id']).toBe(JSON.parse(received.rawBody).id);
      expect(received.headers['service-delivery-attempt']).toBe('1');
    }
  });
});
