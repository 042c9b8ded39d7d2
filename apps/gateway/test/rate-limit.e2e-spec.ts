import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ApiClient, ApiResponse, eventually, startStack, Stack } from '@mailroom/testing';
import { GatewayEvents } from '@mailroom/contracts';
import { connect, JSONCodec } from 'nats';
import { bootstrapGateway } from '../src/bootstrap';

const RATE = 1;
const BURST = 10;

/**
 * Sends `request` until it is answered 429 (at most 50 times). A bucket refills at RATE tokens a second while the
 * requests go out, so on a slow machine a few more than BURST may pass before the 429: `extraAllowed` is how many
 * the time they took allows (measured from `started`, before the first request, so never too few).
 */
async function untilLimited(request: () => Promise<ApiResponse>, onEach: (response: ApiResponse) => void = () => undefined, started = Date.now()) {
  const statuses: number[] = [];
  let last: ApiResponse | undefined;
  while (statuses.length < 50) {
    last = await request();
    onEach(last);
    statuses.push(last.status);
    if (last.status === 429) break;
  }
  return { statuses, last: last!, extraAllowed: Math.floor(((Date.now() - started) / 1000) * RATE) };
}

/** What the gateways broadcast about the requests they let through, counted per key. */
async function consumptionReports(natsUrl: string) {
  const connection = await connect({ servers: natsUrl });
  const codec = JSONCodec<{ counts: Record<string, number> }>();
  const counted = new Map<string, number>();
  connection.subscribe(GatewayEvents.rateLimitConsumed, {
    callback: (error, message) => {
      if (error) return;
      for (const [keyId, count] of Object.entries(codec.decode(message.data).counts)) counted.set(keyId, (counted.get(keyId) ?? 0) + count);
    },
  });
  await connection.flush();
  return { countFor: (keyId: string) => counted.get(keyId) ?? 0, close: () => connection.drain() };
}

describe('rate limits per API key', () => {
  let stack: Stack;
  let second: NestFastifyApplication;
  let secondApi: ApiClient;

  beforeAll(async () => {
    stack = await startStack({ apps: ['keys', 'gateway'], env: { RATE_LIMIT_PER_SECOND: String(RATE), RATE_LIMIT_BURST: String(BURST), RATE_LIMIT_SYNC_MS: '50' } });
    second = await bootstrapGateway(stack.configFor('gateway'));
    secondApi = new ApiClient((await second.getUrl()).replace('[::1]', '127.0.0.1'), stack.rootKey);
  });
  afterAll(async () => {
    await second?.close();
    await stack?.stop();
  });

  it('sends RateLimit headers on every response and answers 429 with Retry-After past the burst', async () => {
    const { key } = await stack.issueKey({ name: 'limited' });
    const api = stack.api.withKey(key);
    const { statuses, last, extraAllowed } = await untilLimited(
      () => api.get('/v1/api-keys'),
      (response) => {
        expect(response.headers.get('ratelimit-limit')).toBe(String(BURST));
        expect(response.headers.get('ratelimit-remaining')).not.toBeNull();
        expect(response.headers.get('ratelimit-reset')).not.toBeNull();
      },
    );
    // The burst, plus at most what refilled meanwhile (nothing, unless the machine is slow), then 429.
    expect(statuses.at(-1)).toBe(429);
    const allowed = statuses.slice(0, -1);
    expect(allowed.every((status) => status === 200)).toBe(true);
    expect(allowed.length).toBeGreaterThanOrEqual(BURST);
    expect(allowed.length).toBeLessThanOrEqual(BURST + extraAllowed);
    expect(last.body).toEqual({ error: { code: 'rate_limited', message: `Too many requests for this API key; retry after ${last.headers.get('retry-after')} s.` } });
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(last.headers.get('ratelimit-remaining')).toBe('0');
  });

  it('counts a request before reading its body: a body error carries the headers, and 429 comes before it', async () => {
    const { key } = await stack.issueKey({ name: 'sloppy' });
    const badJson = () => stack.api.request('POST', '/v1/api-keys', { key, rawBody: '{bad', headers: { 'content-type': 'application/json' } });
    const { statuses, last, extraAllowed } = await untilLimited(badJson, (response) => expect(response.headers.get('ratelimit-limit')).toBe(String(BURST)));
    expect(statuses.at(-1)).toBe(429);
    const counted = statuses.slice(0, -1);
    expect(counted.every((status) => status === 400)).toBe(true);
    expect(counted.length).toBeGreaterThanOrEqual(BURST);
    expect(counted.length).toBeLessThanOrEqual(BURST + extraAllowed);
    expect(last.headers.get('retry-after')).not.toBeNull();
  });

  it('takes no token for a request refused 403 for its permission, which carries no RateLimit headers', async () => {
    const { key } = await stack.issueKey({ name: 'reader', permissions: ['emails:read'] });
    const api = stack.api.withKey(key);
    for (let i = 0; i < BURST + 5; i += 1) {
      const refused = await api.get('/v1/api-keys');
      expect(refused.status).toBe(403);
      expect([...refused.headers.keys()].filter((name) => /^(ratelimit-|retry-after$)/.test(name))).toEqual([]);
    }
    // The first request the key may make finds its bucket whole: it is answered (503, no emails service in this
    // stack) with one token taken, where 403s that cost a token each would have left it empty (429).
    const permitted = await api.get('/v1/emails/email_01ARZ3NDEKTSV4RRFFQ69G5FAV');
    expect(permitted.status).not.toBe(429);
    expect(permitted.headers.get('ratelimit-remaining')).toBe(String(BURST - 1));
  });

  it('documents in /openapi.json each rate limit header an answer carries, errors included', async () => {
    const doc = (await stack.api.get('/openapi.json', { key: null })).body;
    const { key } = await stack.issueKey({ name: 'documented' });
    const api = stack.api.withKey(key);
    const answers: Array<[string, ApiResponse]> = [
      ['GET /v1/api-keys', await api.get('/v1/api-keys')],
      ['POST /v1/api-keys', await api.request('POST', '/v1/api-keys', { rawBody: '{bad', headers: { 'content-type': 'application/json' } })],
      ['POST /v1/api-keys', await api.request('POST', '/v1/api-keys', { rawBody: 'name', headers: { 'content-type': 'text/plain' } })],
      ['GET /v1/api-keys/{id}', await api.get('/v1/api-keys/key_01ARZ3NDEKTSV4RRFFQ69G5FAV')],
      ['GET /v1/api-keys', await api.get('/v1/api-keys?unread=1')],
    ];
    answers.push(['GET /v1/api-keys', (await untilLimited(() => api.get('/v1/api-keys'))).last]);
    expect(answers.map(([, response]) => response.status)).toEqual([200, 400, 415, 404, 422, 429]);
    for (const [operation, response] of answers) {
      const [method, path] = operation.split(' ');
      const documented = Object.keys(doc.paths[path][method.toLowerCase()].responses[String(response.status)].headers ?? {}).map((name) => name.toLowerCase());
      const sent = [...response.headers.keys()].filter((name) => /^(ratelimit-|retry-after$)/.test(name));
      expect({ operation, status: response.status, undocumented: sent.filter((name) => !documented.includes(name)) }).toEqual({ operation, status: response.status, undocumented: [] });
    }
  });

  it('shares one bucket between two gateway processes: a burst split across them runs out on the second', async () => {
    const { key, id } = await stack.issueKey({ name: 'shared' });
    const reports = await consumptionReports(stack.nats.url);
    try {
      const started = Date.now();
      const firstShare = BURST - 2;
      for (let i = 0; i < firstShare; i += 1) expect((await stack.api.withKey(key).get('/v1/api-keys')).status).toBe(200);
      // The first gateway has told the others what it let through.
      await eventually(() => reports.countFor(id) >= firstShare, 5000);
      const { statuses, last, extraAllowed } = await untilLimited(() => secondApi.withKey(key).get('/v1/api-keys'), undefined, started);
      // One bucket: the second gateway has only what the first left of the burst (plus what refilled since the
      // first request). A bucket of its own would let a whole burst through.
      expect(statuses.at(-1)).toBe(429);
      expect(statuses.length - 1).toBeGreaterThanOrEqual(BURST - firstShare);
      expect(statuses.length - 1).toBeLessThanOrEqual(BURST - firstShare + extraAllowed);
      expect(last.headers.get('retry-after')).not.toBeNull();
    } finally {
      await reports.close();
    }
  });

  it('survives malformed consumption reports: the limit is still shared, and no key is locked out by one', async () => {
    const poisoned = await stack.issueKey({ name: 'poisoned' });
    const marker = await stack.issueKey({ name: 'marker' });
    const connection = await connect({ servers: stack.nats.url });
    try {
      const encoder = new TextEncoder();
      const malformed = ['not json', '{"replica":"elsewhere","counts":null}', `{"replica":"elsewhere","counts":{"${poisoned.id}":"many"}}`];
      for (const report of malformed) connection.publish(GatewayEvents.rateLimitConsumed, encoder.encode(report));
      // Then a good report that spends far more than the burst: once the gateway has applied it, it has read the
      // ones before. It shows as a 429 whose Retry-After is a deficit of a whole burst (11 s, falling a second
      // each second), where a bucket merely emptied by these requests says 1 s.
      connection.publish(GatewayEvents.rateLimitConsumed, encoder.encode(`{"replica":"elsewhere","counts":{"${marker.id}":1000}}`));
      await connection.flush();
      await eventually(async () => {
        const response = await stack.api.withKey(marker.key).get('/v1/api-keys');
        return response.status === 429 && Number(response.headers.get('retry-after')) > BURST / RATE / 2;
      }, 5000);
      expect((await stack.api.withKey(poisoned.key).get('/v1/api-keys')).status).toBe(200);
    } finally {
      await connection.drain();
    }
  });

  it('limits keys independently', async () => {
    const first = await stack.issueKey({ name: 'a' });
    const other = await stack.issueKey({ name: 'b' });
    const { statuses, extraAllowed } = await untilLimited(() => stack.api.withKey(first.key).get('/v1/api-keys'));
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.length - 1).toBeLessThanOrEqual(BURST + extraAllowed);
    expect((await stack.api.withKey(other.key).get('/v1/api-keys')).status).toBe(200);
  });
});
