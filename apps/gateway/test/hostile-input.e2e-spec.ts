import { ApiClient, ApiResponse, startStack, Stack } from '@mailroom/testing';

/** Values of every JSON type and a few awkward strings, for any field of any body. */
const ODD_VALUES: unknown[] = [null, true, 0, -1, 1.5, 'x', '', ' ', '\u0000', 'a'.repeat(5000), [], [null], [1], {}, { a: 1 }, '😀', 'a\r\nb', '../..', '2026-13-45', '\ud800', 'a\udc00b', { constructor: 'x' }, { toString: 'x', valueOf: 1 }];
const ODD_QUERY_VALUES = ['', 'x', '-1', '0', '101', '1e3', '%00', '%FF', 'a'.repeat(2000), '2026-13-01', 'email_', ',', 'a,b', 'null', '9999-12-31T23:59:59.999999999Z', '2026-W48-3', '2026-329', '20261125T100000Z', '%2B275760-09-14T00:00:00Z'];
const ODD_IDS = ['x', 'email_', '%00', '..%2F..', 'a'.repeat(2000), 'email_01JAAAAAAAAAAAAAAAAAAAAAAA', '%E0%A4%A', '😀'];

const EMAIL = { from: 'hi@acme.test', to: 'someone@example.com', subject: 'Hello', text: 'Hi' };
const EMAIL_FIELDS = ['from', 'to', 'cc', 'bcc', 'replyTo', 'subject', 'html', 'text', 'headers', 'attachments', 'tags', 'metadata', 'scheduledAt', 'tracking'];

/**
 * Whatever a client sends, the answer is never a 5xx, and every error is
 * `{error: {code, message}}`. Every field of every body gets values of
 * every JSON type, and every id and query parameter odd strings, against the
 * whole stack. The answers' other details are the business of each
 * resource's own suite; this one only catches what slips past them all,
 * such as `cc: null`, which the gateway let through as "not given" and the
 * emails service then read as a list (a 500).
 */
describe('hostile input, across the API', () => {
  let stack: Stack;
  let test: ApiClient;
  const failures: string[] = [];

  beforeAll(async () => {
    stack = await startStack({ env: { RATE_LIMIT_PER_SECOND: '0' } });
    // A test key: sends get past the verified-domain rule into the emails service's own parsing.
    test = stack.api.withKey((await stack.issueKey({ mode: 'test', permissions: ['*'] })).key);
  }, 60000);
  afterAll(() => stack?.stop());
  beforeEach(() => {
    failures.length = 0;
  });

  /** Notes an answer that breaks the rule; the test asserts none did, listing each. */
  async function check(client: ApiClient, method: string, path: string, body?: unknown): Promise<ApiResponse> {
    const response = await client.request(method, path, body === undefined ? {} : { body });
    const error = response.body?.error;
    const wellFormed = response.status < 400 || (typeof error?.code === 'string' && typeof error?.message === 'string');
    if (response.status >= 500 || !wellFormed) failures.push(`${method} ${path.slice(0, 80)} ${JSON.stringify(body)?.slice(0, 120)} → ${response.status} ${JSON.stringify(response.body)?.slice(0, 160)}`);
    return response;
  }

  it('answers odd values in every field of a send, a batch and a reschedule without a 5xx', async () => {
    for (const name of EMAIL_FIELDS) {
      for (const value of ODD_VALUES) {
        await check(test, 'POST', '/v1/emails', { ...EMAIL, [name]: value });
        await check(test, 'POST', '/v1/emails/batch', { emails: [{ ...EMAIL, [name]: value }] });
      }
    }
    for (const value of ODD_VALUES) {
      await check(test, 'POST', '/v1/emails', value);
      await check(test, 'POST', '/v1/emails/batch', { emails: value });
      await check(test, 'POST', '/v1/emails', { ...EMAIL, headers: { 'X-Odd': value } });
      await check(test, 'POST', '/v1/emails', { ...EMAIL, metadata: { key: value } });
      await check(test, 'POST', '/v1/emails', { ...EMAIL, attachments: [{ filename: value, content: value, contentType: value, contentId: value }] });
      await check(test, 'POST', '/v1/emails', { ...EMAIL, tracking: { opens: value, clicks: value } });
    }
    const scheduled = await check(test, 'POST', '/v1/emails', { ...EMAIL, scheduledAt: new Date(Date.now() + 3_600_000).toISOString() });
    expect(scheduled.status).toBe(202);
    for (const value of ODD_VALUES) {
      await check(test, 'PATCH', `/v1/emails/${scheduled.body.id}`, { scheduledAt: value });
      await check(test, 'PATCH', `/v1/emails/${scheduled.body.id}`, value);
    }
    expect(failures).toEqual([]);
  });

  it('answers odd values in every field of the other resources, created and updated, without a 5xx', async () => {
    const domain = await check(stack.api, 'POST', '/v1/domains', { name: 'hostile.example.org' });
    const webhook = await check(stack.api, 'POST', '/v1/webhooks', { url: 'https://hooks.example.org/in', events: ['email.delivered'] });
    const key = await check(stack.api, 'POST', '/v1/api-keys', { name: 'hostile', permissions: ['emails:read'] });
    expect([domain.status, webhook.status, key.status]).toEqual([201, 201, 201]);
    for (const value of ODD_VALUES) {
      await check(stack.api, 'POST', '/v1/domains', { name: value });
      await check(stack.api, 'POST', '/v1/suppressions', { email: value, reason: value });
      await check(stack.api, 'POST', '/v1/webhooks', { url: value, events: value, enabled: value });
      await check(stack.api, 'POST', '/v1/api-keys', { name: value, permissions: value, mode: value, domainRestrictions: value, ipRestrictions: value, expiresAt: value });
      for (const name of ['trackOpens', 'trackClicks', 'trackingDomain']) await check(stack.api, 'PATCH', `/v1/domains/${domain.body.id}`, { [name]: value });
      for (const name of ['url', 'events', 'enabled']) await check(stack.api, 'PATCH', `/v1/webhooks/${webhook.body.id}`, { [name]: value });
      for (const name of ['name', 'permissions', 'domainRestrictions', 'ipRestrictions', 'expiresAt']) await check(stack.api, 'PATCH', `/v1/api-keys/${key.body.id}`, { [name]: value });
    }
    expect(failures).toEqual([]);
  });

  it('answers a body nested 100,000 levels deep with 422 naming the field, on every kind of body', async () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    for (const [path, rawBody, field] of [
      ['/v1/emails', `{"from":"hi@acme.test","to":"a@example.com","subject":"s","text":"t","metadata":${deep}}`, 'metadata'],
      ['/v1/emails/batch', `{"emails":${deep}}`, 'emails'],
      ['/v1/api-keys', `{"name":"n","permissions":${deep}}`, 'permissions'],
      // "constructor" makes the JSON parser scan the body for prototype poisoning too.
      ['/v1/webhooks', `{"url":"https://hooks.example.org/in","events":${deep},"constructor":1}`, 'events'],
    ]) {
      const response = await test.request('POST', path, { rawBody, headers: { 'content-type': 'application/json' } });
      expect({ path, status: response.status, body: response.body }).toEqual({
        path,
        status: 422,
        body: { error: { code: 'validation_error', message: `${field}: must not nest objects or arrays more than 32 levels deep` } },
      });
    }
  });

  it('answers odd ids and query parameters on every route without a 5xx', async () => {
    for (const id of ODD_IDS) {
      for (const [method, path] of [
        ['GET', `/v1/emails/${id}`],
        ['POST', `/v1/emails/${id}/cancel`],
        ['GET', `/v1/domains/${id}`],
        ['POST', `/v1/domains/${id}/verify`],
        ['DELETE', `/v1/domains/${id}`],
        ['GET', `/v1/api-keys/${id}`],
        ['DELETE', `/v1/api-keys/${id}`],
        ['GET', `/v1/webhooks/${id}`],
        ['DELETE', `/v1/webhooks/${id}`],
        ['DELETE', `/v1/suppressions/${id}`],
      ]) {
        await check(stack.api, method, path);
      }
    }
    for (const value of ODD_QUERY_VALUES) {
      for (const name of ['limit', 'starting_after', 'ending_before', 'status', 'to', 'tags', 'from_date', 'to_date']) await check(stack.api, 'GET', `/v1/emails?${name}=${value}`);
      for (const name of ['interval', 'from_date', 'to_date', 'domain', 'tags']) await check(stack.api, 'GET', `/v1/analytics?${name}=${value}`);
      for (const route of ['suppressions', 'api-keys', 'domains', 'webhooks']) await check(stack.api, 'GET', `/v1/${route}?limit=${value}&starting_after=${value}`);
    }
    for (const route of ['emails', 'analytics', 'suppressions', 'api-keys', 'domains', 'webhooks']) {
      await check(stack.api, 'GET', `/v1/${route}?constructor=x&toString=y&__proto__=z&limit=1&limit=2`);
    }
    expect(failures).toEqual([]);
  });
});
