import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ApiClient, eventually, startStack, Stack } from '@mailroom/testing';
import { bootstrapGateway } from '../src/bootstrap';

describe('rate limits per API key', () => {
  let stack: Stack;
  let second: NestFastifyApplication;
  let secondApi: ApiClient;

  beforeAll(async () => {
    stack = await startStack({ apps: ['keys', 'gateway'], env: { RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '5', RATE_LIMIT_SYNC_MS: '50' } });
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
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 6; i += 1) {
      last = await api.get('/v1/api-keys');
      statuses.push(last.status);
      expect(last.headers.get('ratelimit-limit')).toBe('5');
      expect(last.headers.get('ratelimit-remaining')).not.toBeNull();
      expect(last.headers.get('ratelimit-reset')).not.toBeNull();
    }
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses[5]).toBe(429);
    expect(last!.body.error.code).toBe('rate_limited');
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('counts a request before reading its body: a body error carries the headers, and 429 comes before it', async () => {
    const { key } = await stack.issueKey({ name: 'sloppy' });
    const badJson = () => stack.api.request('POST', '/v1/api-keys', { key, rawBody: '{bad', headers: { 'content-type': 'application/json' } });
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 6; i += 1) {
      last = await badJson();
      statuses.push(last.status);
      expect(last.headers.get('ratelimit-limit')).toBe('5');
    }
    expect(statuses).toEqual([400, 400, 400, 400, 400, 429]);
    expect(last!.headers.get('retry-after')).not.toBeNull();
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
    for (let i = 0; i < 5; i += 1) await stack.api.withKey(first.key).get('/v1/api-keys');
    expect((await stack.api.withKey(first.key).get('/v1/api-keys')).status).toBe(429);
    expect((await stack.api.withKey(other.key).get('/v1/api-keys')).status).toBe(200);
  });
});
