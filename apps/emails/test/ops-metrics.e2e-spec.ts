import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { EVENT_STREAM } from '@mailroom/contracts';
import { eventually, Scrape, scrapeMetrics } from '@mailroom/testing';
import { connect, DiscardPolicy } from 'nats';
import { DeliveryHarness, emailReaching, routeMailTo, startDeliveryHarness, verifiedDomain } from './support/delivery-harness';

/** A loopback webhook endpoint: /ok answers 200, /gone answers 410. */
async function startReceiver(): Promise<{ url(path: string): string; hits: Map<string, number>; close(): Promise<void> }> {
  const hits = new Map<string, number>();
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      hits.set(request.url ?? '', (hits.get(request.url ?? '') ?? 0) + 1);
      response.writeHead(request.url === '/gone' ? 410 : 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    hits,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The value of a counter or histogram count, 0 when the series does not exist yet. */
function valueOr0(scrape: Scrape, name: string, labels: Record<string, string>): number {
  return scrape.find(name, labels).reduce((sum, sample) => sum + sample.value, 0);
}

describe('/metrics after some traffic', () => {
  let harness: DeliveryHarness;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    harness = await startDeliveryHarness({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_MS: '50' });
    routeMailTo(harness.dns, 'example.test');
    await verifiedDomain(harness, 'acme.test');
    receiver = await startReceiver();
  }, 120000);

  afterAll(async () => {
    await receiver?.close();
    await harness?.stop();
  });

  it('counts API calls by route and status, NATS requests, delivery outcomes and webhook attempts', async () => {
    const api = harness.stack.api;
    const webhookIds: string[] = [];
    for (const path of ['/ok', '/gone']) {
      const created = await api.post('/v1/webhooks', { url: receiver.url(path), events: ['email.delivered'] });
      expect(created.status).toBe(201);
      webhookIds.push(created.body.id);
    }
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const sent = await api.post('/v1/emails', { from: 'hi@acme.test', to: `metrics${i}@example.test`, subject: `Metrics ${i}`, text: 'x' });
      expect(sent.status).toBe(202);
      ids.push(sent.body.id);
    }
    for (const id of ids) await emailReaching(harness.stack, harness.stack.rootKey, id, ['delivered']);
    expect((await api.get('/v1/emails/email_nothing')).status).toBe(404);
    // The receiver counts a request before the dispatcher has read its answer (and counted the attempt), and the
    // /gone endpoint may get one to three of the events, depending on how many were claimed before its 410 disabled
    // it. So wait until every delivery of both webhooks is settled: all three events fanned out (/ok has their three
    // deliveries) and every attempt recorded, which happens after the attempt is counted.
    const deliveries = async (id: string): Promise<Array<{ status: string }>> => (await api.get(`/v1/webhooks/${id}/deliveries?limit=100`)).body.data;
    const settled = (list: Array<{ status: string }>) => list.every((delivery) => delivery.status === 'succeeded' || delivery.status === 'failed');
    await eventually(async () => {
      const [ok, gone] = [await deliveries(webhookIds[0]), await deliveries(webhookIds[1])];
      return ok.length === 3 && gone.length >= 1 && settled(ok) && settled(gone);
    }, 15000);
    expect(receiver.hits.get('/ok')).toBe(3);
    expect(receiver.hits.get('/gone')).toBeGreaterThanOrEqual(1);

    const gateway = await scrapeMetrics(harness.stack.opsUrl('gateway'));
    const sends = { method: 'POST', route: '/v1/emails', status: '202' };
    expect(gateway.types.mailroom_http_request_duration_seconds).toBe('histogram');
    expect(gateway.help.mailroom_http_request_duration_seconds).toBeTruthy();
    expect(gateway.value('mailroom_http_request_duration_seconds_count', sends)).toBe(3);
    expect(gateway.value('mailroom_http_request_duration_seconds_bucket', { ...sends, le: '+Inf' })).toBe(3);
    expect(gateway.value('mailroom_http_request_duration_seconds_sum', sends)).toBeGreaterThan(0);
    // The route pattern, not the path: the id stays out of the labels.
    expect(gateway.value('mailroom_http_request_duration_seconds_count', { method: 'GET', route: '/v1/emails/:id', status: '404' })).toBe(1);
    expect(gateway.find('mailroom_http_request_duration_seconds_count').some((sample) => sample.labels.route.includes('email_'))).toBe(false);
    expect(gateway.value('mailroom_nats_request_duration_seconds_count', { subject: 'emails.email.send', outcome: 'ok' })).toBe(3);
    expect(gateway.value('mailroom_nats_request_duration_seconds_count', { subject: 'emails.email.get', outcome: 'error' })).toBe(1);

    const emails = await scrapeMetrics(harness.stack.opsUrl('emails'));
    expect(emails.types.mailroom_email_delivery_outcomes_total).toBe('counter');
    expect(emails.value('mailroom_email_delivery_outcomes_total', { outcome: 'delivered', mode: 'live' })).toBeGreaterThanOrEqual(3);
    expect(emails.types.mailroom_smtp_attempt_duration_seconds).toBe('histogram');
    expect(emails.value('mailroom_smtp_attempt_duration_seconds_count', { result: 'accepted' })).toBeGreaterThanOrEqual(3);
    expect(emails.value('mailroom_smtp_attempt_duration_seconds_bucket', { result: 'accepted', le: '300' })).toBe(emails.value('mailroom_smtp_attempt_duration_seconds_count', { result: 'accepted' }));
    expect(emails.value('mailroom_smtp_attempt_duration_seconds_sum', { result: 'accepted' })).toBeGreaterThan(0);
    expect(emails.types.mailroom_email_queue_depth).toBe('gauge');
    expect(emails.value('mailroom_email_queue_depth', { state: 'due' })).toBe(0);
    expect(emails.value('mailroom_email_oldest_due_age_seconds')).toBe(0);

    const dispatcher = await scrapeMetrics(harness.stack.opsUrl('webhook-dispatcher'));
    expect(dispatcher.types.mailroom_webhook_attempts_total).toBe('counter');
    expect(dispatcher.value('mailroom_webhook_attempts_total', { outcome: 'success' })).toBe(receiver.hits.get('/ok'));
    expect(dispatcher.value('mailroom_webhook_attempts_total', { outcome: 'gone' })).toBe(receiver.hits.get('/gone'));
    expect(dispatcher.types.mailroom_webhook_attempt_duration_seconds).toBe('histogram');
    expect(dispatcher.value('mailroom_webhook_attempt_duration_seconds_count', { outcome: 'success' })).toBe(receiver.hits.get('/ok'));
  });

  it('shows the queue: scheduled emails, and a due email with its age while its delivery is held', async () => {
    const api = harness.stack.api;
    const before = await scrapeMetrics(harness.stack.opsUrl('emails'));
    const scheduledAt = new Date(Date.now() + 3600_000).toISOString();
    const later = await api.post('/v1/emails', { from: 'hi@acme.test', to: 'later@example.test', subject: 'Later', text: 'x', scheduledAt });
    expect(later.status).toBe(202);

    const held = harness.smtp.holdNextData();
    const now = await api.post('/v1/emails', { from: 'hi@acme.test', to: 'held@example.test', subject: 'Held', text: 'x' });
    expect(now.status).toBe(202);
    await held.arrived;
    const whileHeld = await eventually(async () => {
      const scrape = await scrapeMetrics(harness.stack.opsUrl('emails'));
      return scrape.value('mailroom_email_oldest_due_age_seconds') > 0.2 ? scrape : undefined;
    });
    expect(whileHeld.value('mailroom_email_queue_depth', { state: 'due' })).toBe(1);
    expect(whileHeld.value('mailroom_email_queue_depth', { state: 'scheduled' })).toBe(valueOr0(before, 'mailroom_email_queue_depth', { state: 'scheduled' }) + 1);
    expect(whileHeld.value('mailroom_email_queue_depth', { state: 'deferred' })).toBe(0);
    expect(whileHeld.value('mailroom_email_oldest_due_age_seconds')).toBeLessThan(60);

    held.release();
    await emailReaching(harness.stack, harness.stack.rootKey, now.body.id, ['delivered']);
    const after = await eventually(async () => {
      const scrape = await scrapeMetrics(harness.stack.opsUrl('emails'));
      return scrape.value('mailroom_email_queue_depth', { state: 'due' }) === 0 ? scrape : undefined;
    });
    expect(after.value('mailroom_email_oldest_due_age_seconds')).toBe(0);
    expect(after.value('mailroom_email_queue_depth', { state: 'scheduled' })).toBe(whileHeld.value('mailroom_email_queue_depth', { state: 'scheduled' }));
    expect(after.value('mailroom_email_delivery_outcomes_total', { outcome: 'delivered', mode: 'live' })).toBe(
      before.value('mailroom_email_delivery_outcomes_total', { outcome: 'delivered', mode: 'live' }) + 1,
    );
  });

  it('counts a temporary SMTP failure as deferred, then the retry as delivered', async () => {
    const before = await scrapeMetrics(harness.stack.opsUrl('emails'));
    harness.smtp.failNext(451, '4.3.0 try again later');
    const sent = await harness.stack.api.post('/v1/emails', { from: 'hi@acme.test', to: 'retry@example.test', subject: 'Retry', text: 'x' });
    expect(sent.status).toBe(202);
    await emailReaching(harness.stack, harness.stack.rootKey, sent.body.id, ['delivered']);
    const after = await scrapeMetrics(harness.stack.opsUrl('emails'));
    const deferred = { outcome: 'deferred', mode: 'live' };
    expect(valueOr0(after, 'mailroom_email_delivery_outcomes_total', deferred)).toBe(valueOr0(before, 'mailroom_email_delivery_outcomes_total', deferred) + 1);
  });

  it("shows the outbox backlog while the stream refuses events, and 0 once the relay caught up", async () => {
    const emails = { service: 'emails' };
    // The tests before this one leave events (their emails' deliveries) that the relay publishes a moment later.
    const idle = await eventually(async () => {
      const scrape = await scrapeMetrics(harness.stack.opsUrl('emails'));
      return scrape.value('mailroom_outbox_unpublished_events', emails) === 0 ? scrape : undefined;
    });
    expect(idle.types.mailroom_outbox_unpublished_events).toBe('gauge');
    expect(idle.value('mailroom_outbox_unpublished_events', emails)).toBe(0);
    expect(idle.value('mailroom_outbox_oldest_unpublished_age_seconds', emails)).toBe(0);
    expect((await scrapeMetrics(harness.stack.opsUrl('domains'))).value('mailroom_outbox_unpublished_events', { service: 'domains' })).toBe(0);

    // A stream that is full and discards nothing to make room refuses every publish, as one on full JetStream storage does.
    const connection = await connect({ servers: harness.stack.nats.url });
    const manager = await connection.jetstreamManager();
    const { state } = await manager.streams.info(EVENT_STREAM);
    await manager.streams.update(EVENT_STREAM, { max_msgs: state.messages, discard: DiscardPolicy.New });
    try {
      const sent = await harness.stack.api.post('/v1/emails', { from: 'hi@acme.test', to: 'backlog@example.test', subject: 'Backlog', text: 'x' });
      expect(sent.status).toBe(202);
      const behind = await eventually(async () => {
        const scrape = await scrapeMetrics(harness.stack.opsUrl('emails'));
        return scrape.value('mailroom_outbox_oldest_unpublished_age_seconds', emails) > 1 ? scrape : undefined;
      }, 15000);
      expect(behind.value('mailroom_outbox_unpublished_events', emails)).toBeGreaterThanOrEqual(1);
    } finally {
      await manager.streams.update(EVENT_STREAM, { max_msgs: -1, discard: DiscardPolicy.Old });
      await connection.close();
    }

    const caughtUp = await eventually(async () => {
      const scrape = await scrapeMetrics(harness.stack.opsUrl('emails'));
      return scrape.value('mailroom_outbox_unpublished_events', emails) === 0 ? scrape : undefined;
    }, 20000);
    expect(caughtUp.value('mailroom_outbox_oldest_unpublished_age_seconds', emails)).toBe(0);
  });
});
