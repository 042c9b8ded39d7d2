import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ApiClient, ApiResponse, eventually, startStack, Stack } from '@mailroom/testing';
import { bootstrapGateway } from '../src/bootstrap';

const RATE = 1;
const BURST = 5;

/**
 * Sends `request` until it is answered 429 (at most 50 times). A bucket refills at RATE tokens a second while the
 * requests go out, so on a slow machine a few more than BURST may pass before the 429: `extraAllowed` is how many
 * the time they took allows (measured from before the first request, so never too few).
 */
async function untilLimited(request: () => Promise<ApiResponse>, onEach: (response: ApiResponse) => void = () => undefined) {
  const started = Date.now();
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
        expect(response.headers.get('ratelimit-limit')).toBe('5');
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
    expect(last.body.error.code).toBe('rate_limited');
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('counts a request before reading its body: a body error carries the headers, and 429 comes before it', async () => {
    const { key } = await stack.issueKey({ name: 'sloppy' });
    const badJson = () => stack.api.request('POST', '/v1/api-keys', { key, rawBody: '{bad', headers: { 'content-type': 'application/json' } });
    const { statuses, last, extraAllowed } = await untilLimited(badJson, (response) => expect(response.headers.get('ratelimit-limit')).toBe('5'));
    expect(statuses.at(-1)).toBe(429);
    const counted = statuses.slice(0, -1);
    expect(counted.every((status) => status === 400)).toBe(true);
    expect(counted.length).toBeGreaterThanOrEqual(BURST);
    expect(counted.length).toBeLessThanOrEqual(BURST + extraAllowed);
    expect(last.headers.get('retry-after')).not.toBeNull();
  });

  it('holds the limit across two gateway processes', async () => {
    const { key } = await stack.issueKey({ name: 'shared' });
    for (let i = 0; i < 5; i += 1) expect((await stack.api.withKey(key).get('/v1/api-keys')).status).toBe(200);
    // Without sharing, the second gateway would allow a full burst of 5 more.
    const limited = await eventually(async () => {
      const response = await secondApi.withKey(key).get('/v1/api-keys');
      return response.status === 429 ? response : undefined;
    }, 3000);
    expect(limited.headers.get('retry-after')).not.toBeNull();
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
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
