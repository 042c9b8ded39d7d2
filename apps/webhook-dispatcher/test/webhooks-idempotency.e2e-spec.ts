import { Client } from 'pg';
import { eventually, scrapeMetrics, Stack, startStack } from '@mailroom/testing';
import { WEBHOOK_IDEMPOTENCY_KEY_LOCK_CLASS } from '../src/webhooks/webhook-idempotency';

/** POST /v1/webhooks with an Idempotency-Key, by the sends' rules (README "Webhooks"). */
describe('POST /v1/webhooks with an Idempotency-Key', () => {
  let stack: Stack;
  let database: Client;
  const url = 'https://hooks.example.com/keyed';
  const body = { url, events: ['email.delivered', 'email.bounced'], description: 'keyed' };

  beforeAll(async () => {
    stack = await startStack({ apps: ['keys', 'webhook-dispatcher', 'gateway'], env: { RATE_LIMIT_PER_SECOND: '0' } });
    database = new Client({ connectionString: stack.databaseUrl });
    await database.connect();
  });

  afterAll(async () => {
    await database?.end();
    await stack?.stop();
  });

  /** Every live webhook (all the suite makes are live): what the list says there is. */
  const countWebhooks = async (): Promise<number> => (await stack.api.get('/v1/webhooks?limit=1')).body.totalCount;
  const keyed = (key: string) => ({ headers: { 'idempotency-key': key } });
  const keyWaits = async () => (await scrapeMetrics(stack.opsUrl('webhook-dispatcher'))).value('mailroom_idempotency_key_waits_total');

  it('replays the first answer for the same key and body, the webhook as it is now with its current secret, and creates nothing new', async () => {
    const before = await countWebhooks();
    const first = await stack.api.post('/v1/webhooks', body, keyed('replay-1'));
    expect(first.status).toBe(201);
    // The same body with its fields in another order is the same request.
    const again = await stack.api.post('/v1/webhooks', { description: 'keyed', events: body.events, url }, keyed('replay-1'));
    expect(again.status).toBe(201);
    expect(JSON.stringify(again.body)).toBe(JSON.stringify(first.body));
    expect(await countWebhooks()).toBe(before + 1);

    // Changed since: the replay shows the change and the secret that signs now, not a stored copy.
    const { body: rotated } = await stack.api.post(`/v1/webhooks/${first.body.id}/secret/rotate`);
    await stack.api.patch(`/v1/webhooks/${first.body.id}`, { description: 'changed since' });
    const later = await stack.api.post('/v1/webhooks', body, keyed('replay-1'));
    expect(later.status).toBe(201);
    expect(later.body).toEqual({ ...first.body, description: 'changed since', secret: rotated.secret });
    expect(await countWebhooks()).toBe(before + 1);
  });

  it('answers 409 conflict for the same key with a different body, creating nothing', async () => {
    expect((await stack.api.post('/v1/webhooks', body, keyed('conflict-1'))).status).toBe(201);
    const before = await countWebhooks();
    const response = await stack.api.post('/v1/webhooks', { ...body, events: ['*'] }, keyed('conflict-1'));
    expect(response.status).toBe(409);
    expect(response.body.error).toEqual({
      code: 'conflict',
      message: "The Idempotency-Key 'conflict-1' was already used with a different request; use a new key for a new request.",
    });
    expect(await countWebhooks()).toBe(before);
  });

  it('creates exactly one webhook for 5 concurrent requests with one key, and answers each the same webhook and secret', async () => {
    const before = await countWebhooks();
    const responses = await Promise.all(Array.from({ length: 5 }, () => stack.api.post('/v1/webhooks', body, keyed('concurrent-1'))));
    expect(responses.map((response) => response.status)).toEqual(Array(5).fill(201));
    expect(new Set(responses.map((response) => JSON.stringify(response.body))).size).toBe(1);
    expect(await countWebhooks()).toBe(before + 1);
  });

  it('makes a request whose key another is storing wait for it, then answers 409 idempotency_key_in_use after 2 s; freed, the key creates', async () => {
    const apiKey = await stack.issueKey();
    const api = stack.api.withKey(apiKey.key);
    const lock = (fn: string) => database.query(`SELECT ${fn}($1, hashtext($2::text || ' ' || $3::text))`, [WEBHOOK_IDEMPOTENCY_KEY_LOCK_CLASS, apiKey.id, 'in-use-1']);
    // The lock a creating transaction holds while it stores the key.
    await lock('pg_advisory_lock');
    try {
      const waitsBefore = await keyWaits();
      const sent = Date.now();
      const refused = await api.post('/v1/webhooks', body, keyed('in-use-1'));
      expect(Date.now() - sent).toBeGreaterThanOrEqual(2000);
      expect(refused.status).toBe(409);
      expect(refused.body.error).toEqual({
        code: 'idempotency_key_in_use',
        message: "A request with the Idempotency-Key 'in-use-1' is still being processed; retry it later with the same key.",
      });
      expect(await keyWaits()).toBe(waitsBefore + 1);

      // One that arrives while the lock is held and finds it freed within its wait goes on to create.
      const waiting = api.post('/v1/webhooks', body, keyed('in-use-1'));
      await eventually(async () => (await keyWaits()) === waitsBefore + 2, 10000);
      await lock('pg_advisory_unlock');
      const created = await waiting;
      expect(created.status).toBe(201);
      expect((await api.post('/v1/webhooks', body, keyed('in-use-1'))).body.id).toBe(created.body.id);
    } finally {
      await database.query('SELECT pg_advisory_unlock_all()');
    }
  });

  it('remembers nothing of a request refused with 422: the same key then takes the corrected body, and replays that', async () => {
    const before = await countWebhooks();
    const refused = await stack.api.post('/v1/webhooks', { ...body, url: 'http://hooks.example.com/' }, keyed('fixed-after-422'));
    expect(refused.status).toBe(422);
    expect((await database.query(`SELECT key FROM webhooks.idempotency_keys WHERE key = 'fixed-after-422'`)).rows).toEqual([]);
    const fixed = await stack.api.post('/v1/webhooks', body, keyed('fixed-after-422'));
    expect(fixed.status).toBe(201);
    expect((await stack.api.post('/v1/webhooks', body, keyed('fixed-after-422'))).body.id).toBe(fixed.body.id);
    expect(await countWebhooks()).toBe(before + 1);
  });

  it('answers 409 conflict saying so for a replay of a webhook deleted since, and creates no other', async () => {
    const { body: created } = await stack.api.post('/v1/webhooks', body, keyed('deleted-1'));
    expect((await stack.api.delete(`/v1/webhooks/${created.id}`)).status).toBe(200);
    const before = await countWebhooks();
    const replay = await stack.api.post('/v1/webhooks', body, keyed('deleted-1'));
    expect(replay.status).toBe(409);
    expect(replay.body.error).toEqual({
      code: 'conflict',
      message: `The Idempotency-Key 'deleted-1' created webhook ${created.id}, which has since been deleted; use a new key to create another.`,
    });
    expect(await countWebhooks()).toBe(before);
  });

  it('scopes a key to its API key: another key sending the same key and body creates its own webhook', async () => {
    const other = stack.api.withKey((await stack.issueKey()).key);
    const before = await countWebhooks();
    const mine = await stack.api.post('/v1/webhooks', body, keyed('scoped-1'));
    const theirs = await other.post('/v1/webhooks', body, keyed('scoped-1'));
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect(theirs.body.secret).not.toBe(mine.body.secret);
    expect((await other.post('/v1/webhooks', body, keyed('scoped-1'))).body.id).toBe(theirs.body.id);
    expect(await countWebhooks()).toBe(before + 2);
  });

  it('refuses a malformed Idempotency-Key with 422 naming the header, creating nothing', async () => {
    const before = await countWebhooks();
    for (const key of ['has space', 'k'.repeat(257)]) {
      const response = await stack.api.post('/v1/webhooks', body, keyed(key));
      expect(response.status).toBe(422);
      expect(response.body.error.message).toBe('Idempotency-Key: must be 1 to 256 printable ASCII characters without spaces');
    }
    expect(await countWebhooks()).toBe(before);
  });
});
