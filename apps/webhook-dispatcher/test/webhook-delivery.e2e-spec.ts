import { createHmac } from 'node:crypto';
import { signWebhookPayload, verifyWebhookSignature } from '@mailroom/contracts';
import { eventually } from '@mailroom/testing';
import { readmeBodyLimitBytes, runReadmePythonVerifier, startReadmeLocalReceiver, startReadmeNestReceiver } from './support/readme-receivers';
import { WebhookReceiver } from './support/webhook-receiver';
import { webhookSuite } from './support/webhook-suite';

describe('webhook delivery', () => {
  const suite = webhookSuite({
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_RETRY_SCHEDULE: '0s,200ms,400ms',
    WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES: '2',
    WEBHOOK_POLL_MS: '50',
  });

  /** Publishes an event of `kind`, waits for the one request it brings, and says how many v1 values it carries and which of `secrets` verify it. */
  async function signaturesOfNext(kind: string, secrets: string[]): Promise<{ count: number; verifies: boolean[] }> {
    await suite.events.publish(kind);
    await eventually(() => suite.receiver.requests.length === 1);
    const [request] = suite.receiver.requests;
    const header = String(request.headers['service-signature']);
    return { count: header.match(/v1=/g)?.length ?? 0, verifies: secrets.map((secret) => verifyWebhookSignature(request.rawBody, header, secret)) };
  }

  it('POSTs the event as JSON, signed so the helper verifies it with the secret and not with another', async () => {
    const webhook = await suite.fixtures.create(suite.receiver.url());
    const event = await suite.events.publish('email.delivered');
    await eventually(() => suite.receiver.requests.length === 1);
    const [request] = suite.receiver.requests;
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['service-event-id']).toBe(event.id);
    expect(request.headers['webhook-id']).toBe(event.id);
    // The kind in a header, so a receiver can route (or drop) an event before it parses the body.
    expect(request.headers['service-event-type']).toBe('email.delivered');
    expect(JSON.parse(request.rawBody)).toEqual(event);
    expect(request.headers['service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature(request.rawBody, request.headers['service-signature'], webhook.secret)).toBe(true);
    expect(verifyWebhookSignature(request.rawBody, request.headers['service-signature'], 'whsec_not_the_secret')).toBe(false);
    expect(verifyWebhookSignature(JSON.stringify(JSON.parse(request.rawBody), null, 1), request.headers['service-signature'], webhook.secret)).toBe(false);
    const [delivery] = await eventually(async () => {
      const list = await suite.fixtures.deliveries(webhook.id);
      return list[0]?.status === 'succeeded' && list;
    });
    expect(delivery).toMatchObject({ eventId: event.id, eventType: 'email.delivered', attempts: 1, responseCode: 200, nextAttemptAt: null });
    expect(delivery.attemptLog).toHaveLength(1);
    const after = (await suite.stack.api.get(`/v1/webhooks/${webhook.id}`)).body;
    expect(after).toMatchObject({ status: 'active', failureCount: 0, lastDeliveryStatus: 'success' });
    expect(after.lastDeliveryAt).not.toBeNull();
  });

  it('drops malformed events an internal service published, and still delivers the good ones around them', async () => {
    await suite.fixtures.create(suite.receiver.url());
    await suite.events.publishRaw('email.delivered', 'not json');
    const stamp = new Date().toISOString();
    await suite.events.publishRaw('email.delivered', JSON.stringify({ id: 'evt_bad_date', type: 'email.delivered', createdAt: 'yesterday', mode: 'live', data: {} }));
    await suite.events.publishRaw('email.delivered', JSON.stringify({ id: 'evt_no_data', type: 'email.delivered', createdAt: stamp, mode: 'live' }));
    // A kind other than its subject: the emails app's consumers pick events by subject, so they would apply another kind.
    await suite.events.publishRaw('email.complained', JSON.stringify({ id: 'evt_mislabelled', type: 'email.delivered', createdAt: stamp, mode: 'live', data: {} }));
    const good = await suite.events.publish('email.delivered');
    await eventually(() => suite.receiver.requests.length === 1);
    expect(suite.receiver.requests[0].headers['service-event-id']).toBe(good.id);
    // Nothing is left waiting to be redelivered.
    await eventually(async () => (await suite.events.pendingAcks('webhook-dispatcher')) === 0);
    expect(suite.receiver.requests).toHaveLength(1);
  });

  it('sends only the subscribed event kinds', async () => {
    await suite.fixtures.create(suite.receiver.url(), ['email.bounced', 'domain.verified']);
    const skipped = await suite.events.publish('email.opened');
    const bounced = await suite.events.publish('email.bounced');
    const verified = await suite.events.publish('domain.verified', 'live', { id: 'dom_1' });
    await eventually(() => suite.receiver.requests.length >= 2);
    const marker = await suite.events.publish('email.bounced');
    await eventually(() => suite.receiver.requests.length >= 3);
    expect(suite.receiver.eventIds().sort()).toEqual([bounced.id, verified.id, marker.id].sort());
    expect(suite.receiver.eventIds()).not.toContain(skipped.id);
  });

  it('sends a * webhook every event kind the interface shows: email.delivered, email.bounced and email.opened', async () => {
    await suite.fixtures.create(suite.receiver.url(), ['*']);
    const published = [await suite.events.publish('email.delivered'), await suite.events.publish('email.bounced'), await suite.events.publish('email.opened')];
    await eventually(() => suite.receiver.requests.length >= 3);
    expect(suite.receiver.eventIds().sort()).toEqual(published.map((event) => event.id).sort());
    expect(suite.receiver.requests.map((request) => request.headers['service-event-type']).sort()).toEqual(['email.bounced', 'email.delivered', 'email.opened']);
  });

  it('keeps test and live apart: a test-key webhook gets only test events, a live one only live events', async () => {
    const testKey = await suite.stack.issueKey({ mode: 'test' });
    const testApi = suite.stack.api.withKey(testKey.key);
    const liveReceiver = suite.receiver;
    const testReceiver = await new WebhookReceiver().start();
    try {
      await suite.fixtures.create(liveReceiver.url(), ['email.sent']);
      await suite.fixtures.create(testReceiver.url(), ['email.sent'], testApi);
      const live = await suite.events.publish('email.sent', 'live');
      const test = await suite.events.publish('email.sent', 'test');
      await eventually(() => liveReceiver.requests.length >= 1 && testReceiver.requests.length >= 1);
      const marker = await suite.events.publish('email.sent', 'live');
      await eventually(() => liveReceiver.requests.length >= 2);
      expect(liveReceiver.eventIds()).toEqual(expect.arrayContaining([live.id, marker.id]));
      expect(liveReceiver.eventIds()).not.toContain(test.id);
      expect(testReceiver.eventIds()).toEqual([test.id]);
      expect(testReceiver.bodies()[0].mode).toBe('test');
    } finally {
      await testReceiver.stop();
    }
  });

  it('sends domain events to test-key webhooks as well as live ones, since both modes share the domains', async () => {
    const testApi = suite.stack.api.withKey((await suite.stack.issueKey({ mode: 'test' })).key);
    const testReceiver = await new WebhookReceiver().start();
    try {
      await suite.fixtures.create(suite.receiver.url(), ['domain.verified']);
      await suite.fixtures.create(testReceiver.url(), ['domain.verified'], testApi);
      const verified = await suite.events.publish('domain.verified', 'live', { id: 'dom_shared' });
      await eventually(() => suite.receiver.requests.length >= 1 && testReceiver.requests.length >= 1);
      expect(suite.receiver.eventIds()).toEqual([verified.id]);
      expect(testReceiver.eventIds()).toEqual([verified.id]);
    } finally {
      await testReceiver.stop();
    }
  });

  it('retries a failing endpoint on the configured schedule, then fails the delivery; the webhook is failing', async () => {
    suite.receiver.reply = () => ({ status: 500 });
    const webhook = await suite.fixtures.create(suite.receiver.url(), ['email.failed']);
    const event = await suite.events.publish('email.failed');
    const [delivery] = await eventually(async () => {
      const list = await suite.fixtures.deliveries(webhook.id);
      return list[0]?.status === 'failed' && list;
    }, 15000);
    expect(suite.receiver.requests).toHaveLength(3);
    expect(suite.receiver.eventIds()).toEqual([event.id, event.id, event.id]);
    const gaps = [1, 2].map((i) => suite.receiver.requests[i].receivedAt - suite.receiver.requests[i - 1].receivedAt);
    expect(gaps[0]).toBeGreaterThanOrEqual(190);
    expect(gaps[1]).toBeGreaterThanOrEqual(390);
    expect(delivery).toMatchObject({ attempts: 3, responseCode: 500, nextAttemptAt: null, error: 'endpoint answered 500' });
    expect(delivery.attemptLog.map((attempt: any) => attempt.responseCode)).toEqual([500, 500, 500]);
    const after = (await suite.stack.api.get(`/v1/webhooks/${webhook.id}`)).body;
    expect(after).toMatchObject({ status: 'failing', failureCount: 3, lastDeliveryStatus: 'failure' });
    // Recorded once the last attempt was answered, in the interface's ISO 8601.
    expect(new Date(after.lastDeliveryAt).toISOString()).toBe(after.lastDeliveryAt);
    expect(Date.parse(after.lastDeliveryAt)).toBeGreaterThanOrEqual(suite.receiver.requests[2].receivedAt - 1);
    const listed = async (status: string) => (await suite.stack.api.get(`/v1/webhooks?status=${status}&limit=100`)).body.data.map((item: { id: string }) => item.id);
    expect(await listed('failing')).toContain(webhook.id);
    expect(await listed('active')).not.toContain(webhook.id);
  });

  it('drops the deliveries of a deleted webhook with it: one waiting for a retry is gone, and its log with it', async () => {
    suite.receiver.reply = () => ({ status: 500 });
    const webhook = await suite.fixtures.create(suite.receiver.url(), ['email.delivery_delayed']);
    await suite.events.publish('email.delivery_delayed');
    await suite.fixtures.firstDeliveryOnce(webhook.id, 'retrying');
    expect((await suite.stack.api.delete(`/v1/webhooks/${webhook.id}`)).status).toBe(200);
    expect(await suite.fixtures.leased(webhook.id)).toEqual({ rows: 0, leased: 0 });
    expect((await suite.stack.api.get(`/v1/webhooks/${webhook.id}/deliveries`)).status).toBe(404);
  });

  it('goes active → failing → disabled after consecutive failed deliveries, stops sending, and PATCH active re-enables it', async () => {
    suite.receiver.reply = () => ({ status: 502 });
    const webhook = await suite.fixtures.create(suite.receiver.url(), ['email.complained']);
    await suite.events.publish('email.complained');
    await eventually(async () => (await suite.stack.api.get(`/v1/webhooks/${webhook.id}`)).body.status === 'failing');
    await suite.events.publish('email.complained');
    await eventually(async () => (await suite.stack.api.get(`/v1/webhooks/${webhook.id}`)).body.status === 'disabled', 15000);
    expect(suite.receiver.requests).toHaveLength(6);
    expect((await suite.stack.api.get('/v1/webhooks?status=disabled')).body.data.map((item: any) => item.id)).toContain(webhook.id);

    suite.receiver.reply = () => ({ status: 200 });
    await suite.events.publish('email.complained');
    // The dispatcher fans an event out when it consumes it, not when it is published: wait until it has (its
    // ack follows the fan-out's commit), or the PATCH below could re-enable the webhook first and this event be sent.
    await eventually(async () => (await suite.events.pendingAcks('webhook-dispatcher')) === 0);
    expect((await suite.stack.api.post(`/v1/webhooks/${webhook.id}/test`)).status).toBe(409);
    const reenabled = await suite.stack.api.patch(`/v1/webhooks/${webhook.id}`, { status: 'active' });
    expect(reenabled.body).toMatchObject({ status: 'active', failureCount: 0 });
    const event = await suite.events.publish('email.complained');
    await eventually(() => suite.receiver.eventIds().includes(event.id));
    expect(suite.receiver.requests).toHaveLength(7);
  });

  it('disables the webhook at once on 410 Gone', async () => {
    suite.receiver.reply = () => ({ status: 410 });
    const webhook = await suite.fixtures.create(suite.receiver.url(), ['email.clicked']);
    await suite.events.publish('email.clicked');
    await eventually(async () => (await suite.stack.api.get(`/v1/webhooks/${webhook.id}`)).body.status === 'disabled');
    const [delivery] = await suite.fixtures.deliveries(webhook.id);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1, responseCode: 410 });
    expect(suite.receiver.requests).toHaveLength(1);
  });

  it('honours Retry-After on 429 and 503 instead of the shorter scheduled wait', async () => {
    suite.receiver.reply = (_, index) => (index === 0 ? { status: 429, headers: { 'retry-after': '1' } } : index === 1 ? { status: 503, headers: { 'retry-after': '1' } } : { status: 200 });
    const webhook = await suite.fixtures.create(suite.receiver.url(), ['email.queued']);
    await suite.events.publish('email.queued');
    await eventually(async () => (await suite.fixtures.deliveries(webhook.id))[0]?.status === 'succeeded', 10000);
    expect(suite.receiver.requests).toHaveLength(3);
    expect(suite.receiver.requests[1].receivedAt - suite.receiver.requests[0].receivedAt).toBeGreaterThanOrEqual(990);
    expect(suite.receiver.requests[2].receivedAt - suite.receiver.requests[1].receivedAt).toBeGreaterThanOrEqual(990);
  });

  it('signs every attempt at its own time, not the first attempt\'s, so a retry hours later still passes a receiver\'s 5-minute rule', async () => {
    suite.receiver.reply = (_, index) => (index < 2 ? { status: 503, headers: { 'retry-after': '1' } } : { status: 200 });
    const webhook = await suite.fixtures.create(suite.receiver.url(), ['email.sent']);
    await suite.events.publish('email.sent');
    await eventually(async () => (await suite.fixtures.deliveries(webhook.id))[0]?.status === 'succeeded', 10000);
    const stamps = suite.receiver.requests.map((request) => {
      const header = String(request.headers['service-signature']);
      const signedAt = Number(/^t=(\d+),/.exec(header)?.[1]);
      const now = Math.floor(request.receivedAt / 1000);
      // Verified as a receiver verifies it, at the moment it arrived.
      return { signedAt, lag: now - signedAt, verifies: verifyWebhookSignature(request.rawBody, header, webhook.secret, { now }) };
    });
    expect(stamps).toHaveLength(3);
    for (const stamp of stamps) expect({ verifies: stamp.verifies, lagWithin: stamp.lag >= 0 && stamp.lag <= 2 }).toEqual({ verifies: true, lagWithin: true });
    expect(stamps[2].signedAt).toBeGreaterThan(stamps[0].signedAt);
  });

  it('treats a redirect as a failure and never follows it', async () => {
    const target = await new WebhookReceiver().start();
    try {
      suite.receiver.reply = () => ({ status: 302, headers: { location: target.url('/elsewhere') } });
      const webhook = await suite.fixtures.create(suite.receiver.url(), ['email.scheduled']);
      await suite.events.publish('email.scheduled');
      const [delivery] = await eventually(async () => {
        const list = await suite.fixtures.deliveries(webhook.id);
        return list[0]?.status === 'failed' && list;
      }, 10000);
      expect(delivery.error).toMatch(/redirect \(302.*not followed/);
      expect(target.requests).toHaveLength(0);
    } finally {
      await target.stop();
    }
  });

  it('fails a delivery whose signing secret does not decrypt on the retry schedule, sends nothing, and leaves the webhook healthy', async () => {
    const webhook = await suite.fixtures.create(suite.receiver.url(), ['email.opened']);
    await suite.fixtures.sealSecretUnderAnotherKey(webhook.id, webhook.secret);
    await suite.events.publish('email.opened');
    const delivery = await suite.fixtures.firstDeliveryOnce(webhook.id, 'failed', 15_000);
    expect(delivery).toMatchObject({ attempts: 3, responseCode: null, nextAttemptAt: null, error: 'signing secret could not be decrypted' });
    expect(delivery.attemptLog.map((attempt: any) => attempt.error)).toEqual(Array(3).fill('signing secret could not be decrypted'));
    expect(suite.receiver.requests).toHaveLength(0);
    expect((await suite.stack.api.get(`/v1/webhooks/${webhook.id}`)).body).toMatchObject({ status: 'active', failureCount: 0, lastDeliveryStatus: null });
  });

  it('answers 409 for a secret that does not decrypt, naming the way out, and a rotation recovers: the new secret alone signs', async () => {
    const webhook = await suite.fixtures.create(suite.receiver.url(), ['email.opened']);
    await suite.fixtures.sealSecretUnderAnotherKey(webhook.id, webhook.secret);
    const unreadable = await suite.stack.api.get(`/v1/webhooks/${webhook.id}/secret`);
    expect(unreadable.status).toBe(409);
    expect(unreadable.body.error).toEqual({ code: 'conflict', message: expect.stringMatching(/could not be decrypted.*POST \/v1\/webhooks\/\{id\}\/secret\/rotate/) });
    const rotated = await suite.stack.api.post(`/v1/webhooks/${webhook.id}/secret/rotate`);
    expect(rotated.status).toBe(200);
    // Nothing could sign with the old secret any more, so it has no grace: it stopped at the rotation.
    expect(Date.parse(rotated.body.previousSecretExpiresAt)).toBeLessThanOrEqual(Date.now());
    expect((await suite.stack.api.get(`/v1/webhooks/${webhook.id}/secret`)).body).toEqual({ object: 'webhook_secret', secret: rotated.body.secret });
    await suite.events.publish('email.opened');
    const delivery = await suite.fixtures.firstDeliveryOnce(webhook.id, 'succeeded');
    expect(delivery.attemptLog).toHaveLength(1);
    const [request] = suite.receiver.requests;
    expect(String(request.headers['service-signature']).match(/v1=/g)).toHaveLength(1);
    expect(verifyWebhookSignature(request.rawBody, request.headers['service-signature'], rotated.body.secret)).toBe(true);
  });

  it('signs with both secrets for 24 hours after a rotation, and each verifies', async () => {
    const webhook = await suite.fixtures.create(suite.receiver.url(), ['email.suppressed']);
    const rotated = await suite.stack.api.post(`/v1/webhooks/${webhook.id}/secret/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(webhook.secret);
    const expiresIn = Date.parse(rotated.body.previousSecretExpiresAt) - Date.now();
    expect(expiresIn).toBeGreaterThan(23.9 * 3600_000);
    expect(expiresIn).toBeLessThanOrEqual(24 * 3600_000);
    expect((await suite.stack.api.get(`/v1/webhooks/${webhook.id}/secret`)).body).toEqual({ object: 'webhook_secret', secret: rotated.body.secret });
    expect(await signaturesOfNext('email.suppressed', [rotated.body.secret, webhook.secret, 'whsec_other'])).toEqual({ count: 2, verifies: [true, true, false] });
  });

  it('verifies with an HMAC a receiver computes itself from the README: the whole whsec_ string as key, "<t>.<raw body>", at most 5 minutes old', async () => {
    const webhook = await suite.fixtures.create(suite.receiver.url(), ['email.queued']);
    await suite.events.publish('email.queued');
    await eventually(() => suite.receiver.requests.length === 1);
    const [request] = suite.receiver.requests;
    const header = String(request.headers['service-signature']);
    const [, timestamp, signature] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header)!;
    expect(createHmac('sha256', webhook.secret).update(`${timestamp}.${request.rawBody}`).digest('hex')).toBe(signature);
    // Standard Webhooks base64-decodes what follows whsec_; Mailroom does not, and a receiver that does gets another key.
    const decodedKey = Buffer.from(webhook.secret.slice('whsec_'.length), 'base64url');
    expect(createHmac('sha256', decodedKey).update(`${timestamp}.${request.rawBody}`).digest('hex')).not.toBe(signature);
    expect(verifyWebhookSignature(request.rawBody, header, webhook.secret, { now: Number(timestamp) + 300 })).toBe(true);
    expect(verifyWebhookSignature(request.rawBody, header, webhook.secret, { now: Number(timestamp) + 301 })).toBe(false);
  });

  it("runs the README's NestJS receiver as written: it answers a real delivery 204, and a changed body or another secret 400", async () => {
    const receiver = await startReadmeNestReceiver();
    const secretBefore = process.env.MAILROOM_WEBHOOK_SECRET;
    try {
      const webhook = await suite.fixtures.create(receiver.url, ['email.opened']);
      process.env.MAILROOM_WEBHOOK_SECRET = webhook.secret;
      await suite.events.publish('email.opened');
      expect(await suite.fixtures.firstDeliveryOnce(webhook.id, 'succeeded')).toMatchObject({ responseCode: 204 });
      // Another delivery, captured as the dispatcher made it and posted again: as it is, changed, and under another secret.
      const captured = await suite.fixtures.create(suite.receiver.url(), ['email.clicked']);
      await suite.events.publish('email.clicked');
      await eventually(() => suite.receiver.requests.length === 1);
      const [request] = suite.receiver.requests;
      const post = (body: string) =>
        fetch(receiver.url, { method: 'POST', headers: { 'content-type': 'application/json', 'service-signature': String(request.headers['service-signature']) }, body });
      process.env.MAILROOM_WEBHOOK_SECRET = captured.secret;
      expect((await post(request.rawBody)).status).toBe(204);
      expect((await post(request.rawBody.replace('"email.clicked"', '"email.opened"'))).status).toBe(400);
      process.env.MAILROOM_WEBHOOK_SECRET = webhook.secret;
      expect((await post(request.rawBody)).status).toBe(400);
    } finally {
      if (secretBefore === undefined) delete process.env.MAILROOM_WEBHOOK_SECRET;
      else process.env.MAILROOM_WEBHOOK_SECRET = secretBefore;
      await receiver.close();
    }
  });

  it("runs the README's local receiver.js as written: a real delivery, or the event in other bytes signed, is answered 204; a changed body, another secret, a stale or early timestamp or none 400", async () => {
    const webhook = await suite.fixtures.create(suite.receiver.url(), ['email.delivered']);
    const receiver = await startReadmeLocalReceiver(webhook.secret);
    try {
      // A delivery captured as the dispatcher made it, to post again as it is and changed.
      await suite.events.publish('email.delivered');
      await eventually(() => suite.receiver.requests.length === 1);
      const [captured] = suite.receiver.requests;
      // The recipe's order: the webhook exists first, its secret goes to the receiver, then the dispatcher posts to it.
      expect((await suite.stack.api.patch(`/v1/webhooks/${webhook.id}`, { url: receiver.url })).status).toBe(200);
      const event = await suite.events.publish('email.delivered');
      const delivered = await eventually(async () => (await suite.fixtures.deliveries(webhook.id)).find((delivery) => delivery.eventId === event.id && delivery.status !== 'pending'));
      expect(delivered).toMatchObject({ status: 'succeeded', responseCode: 204, attempts: 1 });
      await eventually(() => receiver.output().includes(`email.delivered ${event.id}\n`));

      const body = captured.rawBody;
      const now = Math.floor(Date.now() / 1000);
      const post = async (content: string, signature: string | null) => {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (signature !== null) headers['service-signature'] = signature;
        return (await fetch(receiver.url, { method: 'POST', headers, body: content })).status;
      };
      // The same event in other bytes than the dispatcher's, signed: the receiver checks the bytes it got, not a re-serialization.
      const reformatted = JSON.stringify(JSON.parse(body), null, 2);
      expect({
        asSent: await post(body, String(captured.headers['service-signature'])),
        reformatted: await post(reformatted, signWebhookPayload(reformatted, [webhook.secret], now)),
        bodyChanged: await post(body.replace('"email.delivered"', '"email.bounced"'), String(captured.headers['service-signature'])),
        otherSecret: await post(body, signWebhookPayload(body, ['whsec_not_the_secret'], now)),
        // Older, or further ahead, than the 5 minutes.
        stale: await post(body, signWebhookPayload(body, [webhook.secret], now - 310)),
        early: await post(body, signWebhookPayload(body, [webhook.secret], now + 310)),
        unsigned: await post(body, null),
      }).toEqual({ asSent: 204, reformatted: 204, bodyChanged: 400, otherSecret: 400, stale: 400, early: 400, unsigned: 400 });
    } finally {
      await receiver.close();
    }
  });

  it("delivers events larger than body-parser's 100 kB default, and the README's Express and NestJS samples read up to NATS's 1 MB", async () => {
    await suite.fixtures.create(suite.receiver.url(), ['email.delivered']);
    // The summary of an email Mailroom accepts: 50 recipients, each under a display name of 500 words.
    const to = Array.from({ length: 50 }, (_, i) => `${'Name '.repeat(500)}<reader${i}@example.com>`);
    await suite.events.publish('email.delivered', 'live', { to, recipient: 'reader0@example.com' });
    await eventually(() => suite.receiver.requests.length === 1);
    expect(Buffer.byteLength(suite.receiver.requests[0].rawBody)).toBeGreaterThan(100 * 1024);
    // An event may be as large as the NATS server's max_payload (1 MB by default); a receiver that reads less answers
    // 413 to every attempt of a larger one, and its webhook ends up disabled.
    expect(readmeBodyLimitBytes('// Express')).toBeGreaterThanOrEqual(1024 * 1024);
    expect(readmeBodyLimitBytes('// NestJS')).toBeGreaterThanOrEqual(1024 * 1024);
  });

  it("runs the README's Python verifier on a real delivery: the secret verifies it, and nothing else does", async () => {
    const webhook = await suite.fixtures.create(suite.receiver.url(), ['email.complained']);
    await suite.events.publish('email.complained');
    await eventually(() => suite.receiver.requests.length === 1);
    const [request] = suite.receiver.requests;
    const { rawBody: body, headers } = request;
    const header = String(headers['service-signature']);
    const now = Math.floor(Date.now() / 1000);
    expect(
      await runReadmePythonVerifier([
        { body, header, secret: webhook.secret },
        { body, header, secret: 'whsec_not_the_secret' },
        { body: JSON.stringify(JSON.parse(body), null, 1), header, secret: webhook.secret },
        // During a rotation: one v1 per secret, either verifies.
        { body, header: signWebhookPayload(body, ['whsec_the_new_secret', webhook.secret], now), secret: webhook.secret },
        // Older, or further ahead, than 5 minutes.
        { body, header: signWebhookPayload(body, [webhook.secret], now - 310), secret: webhook.secret },
        { body, header: signWebhookPayload(body, [webhook.secret], now + 310), secret: webhook.secret },
        // Whatever a sender puts in the header is an answer, never an exception.
        { body, header: `${header},v1=é`, secret: webhook.secret },
        { body, header: 't=²,v1=00', secret: webhook.secret },
        { body, header: '', secret: webhook.secret },
        // No header at all: request.headers.get('service-signature') without a default.
        { body, header: null, secret: webhook.secret },
        // A secret variable set but empty (a missing deployment secret): anyone can sign with the empty key.
        { body, header: signWebhookPayload(body, [''], now), secret: '' },
      ]),
    ).toEqual([true, false, false, true, false, false, true, false, false, false, false]);
  });

  it('stops signing with the old secret once its grace has passed: only the new one verifies', async () => {
    const webhook = await suite.fixtures.create(suite.receiver.url(), ['email.sent']);
    const rotated = (await suite.stack.api.post(`/v1/webhooks/${webhook.id}/secret/rotate`)).body;
    // The 24 hours, passed: the expiry moved into the past rather than the clock forward.
    await suite.fixtures.overwriteStored(webhook.id, 'previous_secret_expires_at', new Date(Date.now() - 1_000).toISOString());
    expect(await signaturesOfNext('email.sent', [rotated.secret, webhook.secret])).toEqual({ count: 1, verifies: [true, false] });
  });

  it('signs with the two newest secrets only: rotating again within the grace stops the oldest at once', async () => {
    const webhook = await suite.fixtures.create(suite.receiver.url(), ['email.scheduled']);
    const first = (await suite.stack.api.post(`/v1/webhooks/${webhook.id}/secret/rotate`)).body;
    const second = (await suite.stack.api.post(`/v1/webhooks/${webhook.id}/secret/rotate`)).body;
    expect(await signaturesOfNext('email.scheduled', [second.secret, first.secret, webhook.secret])).toEqual({ count: 2, verifies: [true, true, false] });
  });

  it('attempts a webhook.test delivery once: a failure ends it, with no retry on the schedule', async () => {
    suite.receiver.reply = () => ({ status: 500 });
    const webhook = await suite.fixtures.create(suite.receiver.url(), ['email.sent']);
    const sent = await suite.stack.api.post(`/v1/webhooks/${webhook.id}/test`);
    expect(sent.status).toBe(202);
    const delivery = await suite.fixtures.firstDeliveryOnce(webhook.id, 'failed');
    expect(delivery).toMatchObject({ id: sent.body.id, attempts: 1, responseCode: 500, nextAttemptAt: null });
    expect(suite.receiver.requests).toHaveLength(1);
    expect((await suite.stack.api.get(`/v1/webhooks/${webhook.id}`)).body).toMatchObject({ status: 'failing', failureCount: 1 });
  });

  it('sends a webhook.test event to that endpoint only, and retries a delivery by hand', async () => {
    const other = await new WebhookReceiver().start();
    try {
      const webhook = await suite.fixtures.create(suite.receiver.url(), ['domain.failed']);
      await suite.fixtures.create(other.url(), ['*']);
      const sent = await suite.stack.api.post(`/v1/webhooks/${webhook.id}/test`);
      expect(sent.status).toBe(202);
      expect(sent.body).toMatchObject({ object: 'webhook_delivery', eventType: 'webhook.test', status: 'pending' });
      await eventually(() => suite.receiver.requests.length === 1);
      expect(suite.receiver.bodies()[0]).toMatchObject({ type: 'webhook.test', id: sent.body.eventId });
      expect(suite.receiver.requests[0].headers['service-event-type']).toBe('webhook.test');
      expect(other.requests).toHaveLength(0);
      // The attempt is recorded, and its lease let go, just after the receiver answered; a retry before then is
      // refused as a delivery being attempted right now (409), which is what a client waits out.
      await eventually(async () => (await suite.fixtures.deliveries(webhook.id))[0]?.status === 'succeeded');

      const retried = await suite.stack.api.post(`/v1/webhooks/${webhook.id}/deliveries/${sent.body.id}/retry`);
      expect(retried.status).toBe(202);
      await eventually(() => suite.receiver.requests.length === 2);
      expect(suite.receiver.eventIds()).toEqual([sent.body.eventId, sent.body.eventId]);
      const [delivery] = await eventually(async () => {
        const list = await suite.fixtures.deliveries(webhook.id);
        return list[0]?.attemptLog.length === 2 && list;
      });
      expect(delivery).toMatchObject({ status: 'succeeded', attempts: 2 });
      expect((await suite.stack.api.post(`/v1/webhooks/${webhook.id}/deliveries/whd_01JAAAAAAAAAAAAAAAAAAAAAAA/retry`)).status).toBe(404);
    } finally {
      await other.stop();
    }
  });

  it('never lets a slow endpoint delay another one', async () => {
    const slow = await new WebhookReceiver().start();
    try {
      slow.reply = () => 'hold';
      await suite.fixtures.create(slow.url(), ['email.delivery_delayed']);
      await suite.fixtures.create(suite.receiver.url(), ['email.delivery_delayed']);
      for (let i = 0; i < 15; i += 1) await suite.events.publish('email.delivery_delayed');
      await eventually(() => suite.receiver.requests.length === 15, 5000);
      // The per-endpoint limit (10 by default) caps what the slow one holds.
      expect(slow.requests.length).toBeLessThanOrEqual(10);
    } finally {
      slow.release();
      await slow.stop();
    }
  });
});
