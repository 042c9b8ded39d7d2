import { ApiClient, startStack, Stack } from '@mailroom/testing';

const ULID = '01ARZ3NDEKTSV4RRFFQ69G5FAV';

/**
 * A list's cursors are ids of that list. One of another resource names no
 * place in it: compared with the list's ids it sorted before or after all of
 * them, so a client that mixed up its cursors was answered a first page again
 * or an empty page that looked like the end, with 200.
 */
describe('list queries: cursors of another resource and empty date ranges', () => {
  let stack: Stack;
  let test: ApiClient;
  let webhookId: string;

  beforeAll(async () => {
    stack = await startStack();
    test = stack.api.withKey((await stack.issueKey({ mode: 'test', permissions: ['*'] })).key);
    const email = await test.post('/v1/emails', { from: 'hi@acme.test', to: 'someone@example.com', subject: 'Hello', text: 'Hi' });
    const domain = await test.post('/v1/domains', { name: 'cursors.example.org' });
    const webhook = await test.post('/v1/webhooks', { url: 'https://hooks.example.org/in', events: ['email.delivered'] });
    expect([email.status, domain.status, webhook.status]).toEqual([202, 201, 201]);
    webhookId = webhook.body.id;
  }, 60000);
  afterAll(() => stack?.stop());

  const lists = () => [
    ['/v1/api-keys', 'key_', `email_${ULID}`],
    ['/v1/emails', 'email_', `key_${ULID}`],
    ['/v1/domains', 'dom_', `wh_${ULID}`],
    ['/v1/webhooks', 'wh_', `dom_${ULID}`],
    [`/v1/webhooks/${webhookId}/deliveries`, 'whd_', `wh_${ULID}`],
  ];

  it('refuses them with 422, naming the cursor and the ids the list takes', async () => {
    for (const [path, prefix, foreign] of lists()) {
      for (const cursor of ['starting_after', 'ending_before']) {
        const response = await test.get(`${path}?${cursor}=${foreign}`);
        expect({ path, cursor, status: response.status, body: response.body }).toEqual({
          path,
          cursor,
          status: 422,
          body: { error: { code: 'validation_error', message: `${cursor}: must be an id of this list (${prefix}…) from a previous page` } },
        });
      }
    }
  });

  it('still pages with a cursor of the list itself, known or not', async () => {
    for (const [path, prefix] of lists()) {
      const response = await test.get(`${path}?starting_after=${prefix}${ULID}`);
      expect({ path, status: response.status, object: response.body.object }).toEqual({ path, status: 200, object: 'list' });
    }
    const emails = await test.get(`/v1/emails?starting_after=email_${'Z'.repeat(26)}`);
    expect(emails.body.data).toHaveLength(1);
  });

  it('refuses an email date range that ends where or before it starts with 422, rather than an empty page', async () => {
    for (const [from, to] of [
      ['2026-12-01T00:00:00Z', '2026-01-01T00:00:00Z'],
      ['2026-12-01T00:00:00Z', '2026-12-01T00:00:00Z'],
      // Read as UTC: 10:00 without an offset is after 09:00+00:00.
      ['2026-12-01T10:00:00', '2026-12-01T09:00:00Z'],
    ]) {
      const response = await test.get(`/v1/emails?from_date=${from}&to_date=${to}`);
      expect({ from, to, status: response.status, body: response.body }).toEqual({
        from,
        to,
        status: 422,
        body: { error: { code: 'validation_error', message: 'from_date: must be before to_date' } },
      });
    }
  });

  it('refuses a query value or name that is not UTF-8 once percent-decoded with 422 naming it, as paths and bodies are refused, rather than a page for U+FFFD', async () => {
    for (const [query, field] of [
      ['to=%C0%AF@x.com', 'to'],
      ['tags=caf%E9', 'tags'],
      ['status=queued&to=%FF', 'to'],
    ]) {
      const response = await test.get(`/v1/emails?${query}`);
      expect({ query, status: response.status, body: response.body }).toEqual({
        query,
        status: 422,
        body: { error: { code: 'validation_error', message: `${field}: must be UTF-8 once percent-decoded (write each byte of a character's UTF-8 encoding as %XX)` } },
      });
    }
    const badName = await test.get('/v1/emails?t%FFo=a');
    expect(badName.status).toBe(422);
    expect(badName.body.error.message).toBe('t%FFo: must be UTF-8 once percent-decoded (a query parameter name)');
    // UTF-8 in every form still reads as before, and a stray % is left to the parameter's own rules.
    for (const query of ['to=ann@b%C3%BCcher.example', 'to=j%C3%B6rg@example.com', 'to=%F0%9F%93%A8@example.com']) {
      const response = await test.get(`/v1/emails?${query}`);
      expect({ query, status: response.status, object: response.body.object }).toEqual({ query, status: 200, object: 'list' });
    }
  });

  it('says how to write an offset\'s + when a query string turned it into a space', async () => {
    const response = await test.get('/v1/emails?from_date=2026-01-01T00:00:00+02:00');
    expect(response.status).toBe(422);
    expect(response.body.error.message).toBe('from_date: must be an ISO 8601 timestamp such as 2025-01-31T12:00:00Z (a + in a query string reads as a space: write it %2B)');
    expect((await test.get('/v1/emails?from_date=2026-01-01T00:00:00%2B02:00')).status).toBe(200);
  });

  it('says how to write a plus address\'s + in the to filter when a query string turned it into a space', async () => {
    const response = await test.get('/v1/emails?to=someone+news@example.com');
    expect(response.status).toBe(422);
    expect(response.body.error.message).toBe('to: must be one email address (a + in a query string reads as a space: write it %2B)');
    expect((await test.get('/v1/emails?to=someone%2Bnews@example.com')).status).toBe(200);
    // A space that no + explains gets no hint.
    expect((await test.get('/v1/emails?to=a%20b')).body.error.message).toBe('to: must be one email address');
  });

  it('still lists an email range in order, and either end alone', async () => {
    const now = Date.now();
    const around = await test.get(`/v1/emails?from_date=${new Date(now - 3_600_000).toISOString()}&to_date=${new Date(now + 3_600_000).toISOString()}`);
    expect({ status: around.status, count: around.body.data?.length }).toEqual({ status: 200, count: 1 });
    expect((await test.get('/v1/emails?from_date=2000-01-01')).body.data).toHaveLength(1);
    expect((await test.get('/v1/emails?to_date=2000-01-01')).body.data).toHaveLength(0);
  });
});
