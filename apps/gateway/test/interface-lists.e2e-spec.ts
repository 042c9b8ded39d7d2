import { ApiClient, startStack, Stack } from '@mailroom/testing';

/** What toISOString() writes: the one ISO 8601 form every timestamp of the interface comes in. */
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const inOneDay = () => new Date(Date.now() + 24 * 3600 * 1000).toISOString();

/**
 * The interface's Limits table and list envelope, on the three lists it names (emails, domains, webhooks):
 * limit at most 100, the page size when limit is left out (10: the interface's for emails, the README's for
 * the other two), and an envelope of exactly object, data, hasMore and totalCount, around items whose
 * timestamps are ISO 8601. Each list holds 11 items, one more than the default page.
 */
describe('the interface\'s list limits and envelope on GET /v1/emails, /v1/domains and /v1/webhooks', () => {
  let stack: Stack;
  let test: ApiClient;
  const lists = ['/v1/emails', '/v1/domains', '/v1/webhooks'];

  beforeAll(async () => {
    stack = await startStack({ env: { RATE_LIMIT_PER_SECOND: '0', RPC_TIMEOUT_MS: '20000' } });
    test = stack.api.withKey((await stack.issueKey({ mode: 'test', permissions: ['*'] })).key);
    // All 33 at once: each domain waits on its own RSA key generation, which the domains service runs off its event loop.
    const created = await Promise.all(
      Array.from({ length: 11 }, (_, i) =>
        Promise.all([
          // Scheduled a day ahead, so no worker changes the emails while the suite runs.
          test.post('/v1/emails', { from: 'hi@acme.test', to: 'someone@example.com', subject: `email ${i}`, text: 'Hi', scheduledAt: inOneDay() }),
          test.post('/v1/domains', { name: `list-${i}-${process.pid}.example.org` }),
          test.post('/v1/webhooks', { url: `https://hooks.example.org/${i}`, events: ['email.delivered'] }),
        ]),
      ),
    );
    expect(created.map((responses) => responses.map((response) => response.status))).toEqual(Array(11).fill([202, 201, 201]));
  }, 120000);
  afterAll(() => stack?.stop());

  it('answers a page of 10 when limit is left out, with hasMore and the exact totalCount', async () => {
    for (const path of lists) {
      const { status, body } = await test.get(path);
      expect({ path, status, size: body.data?.length, hasMore: body.hasMore, totalCount: body.totalCount }).toEqual({ path, status: 200, size: 10, hasMore: true, totalCount: 11 });
    }
  });

  it('takes limit=100, the maximum, and refuses 101 with 422 naming limit', async () => {
    for (const path of lists) {
      const largest = await test.get(`${path}?limit=100`);
      expect({ path, status: largest.status, size: largest.body.data?.length, hasMore: largest.body.hasMore }).toEqual({ path, status: 200, size: 11, hasMore: false });
      const over = await test.get(`${path}?limit=101`);
      expect({ path, status: over.status, body: over.body }).toEqual({
        path,
        status: 422,
        body: { error: { code: 'validation_error', message: 'limit: must be an integer between 1 and 100' } },
      });
    }
  });

  it('answers the envelope with exactly object "list", data, hasMore and totalCount, its items with ISO 8601 createdAt', async () => {
    for (const path of lists) {
      const { body } = await test.get(`${path}?limit=3`);
      expect({ path, fields: Object.keys(body).sort(), object: body.object }).toEqual({ path, fields: ['data', 'hasMore', 'object', 'totalCount'], object: 'list' });
      for (const item of body.data) expect({ path, createdAt: item.createdAt }).toEqual({ path, createdAt: expect.stringMatching(ISO_TIMESTAMP) });
    }
  });

  it('serves the interface\'s endpoints under /v1 only: the same paths without the prefix are 404 not_found', async () => {
    for (const path of [...lists, '/v1/api-keys']) {
      const bare = await test.get(path.slice('/v1'.length));
      expect({ path, status: bare.status, code: bare.body?.error?.code }).toEqual({ path, status: 404, code: 'not_found' });
    }
  });
});
