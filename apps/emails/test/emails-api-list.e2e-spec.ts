import { ApiClient, startStack, Stack } from '@mailroom/testing';
import { emailBody, inOneDay, queryDatabase } from './emails-api-fixtures';

interface Item {
  id: string;
  createdAt: string;
}

/**
 * 14 test-mode emails, oldest first: 13 from acme.test (to alternating
 * even/odd, tags by i % 3, #1 and #4 cancelled, #12 suppressed) and the
 * newest, #13, from other.test. All scheduled a day ahead, so no worker
 * changes a status while the suite runs.
 */
describe('GET /v1/emails and GET /v1/emails/{id}', () => {
  let stack: Stack;
  let test: ApiClient;
  const created: Item[] = [];
  const ids = (indexes: number[]) => indexes.map((i) => created[i].id);
  const listIds = async (query: string, client = test) => {
    const response = await client.get(`/v1/emails${query}`);
    expect(response.status).toBe(200);
    return { ids: response.body.data.map((item: Item) => item.id), body: response.body };
  };

  beforeAll(async () => {
    stack = await startStack({ env: { RATE_LIMIT_PER_SECOND: '0' } });
    test = stack.api.withKey((await stack.issueKey({ mode: 'test' })).key);
    await test.post('/v1/suppressions', { email: 'blocked@example.com' });
    for (let i = 0; i < 14; i++) {
      const response = await test.post(
        '/v1/emails',
        emailBody({
          from: i === 13 ? 'hi@other.test' : 'Acme <hi@acme.test>',
          to: i === 12 ? 'blocked@example.com' : i % 2 === 0 ? 'Even@Example.com' : 'odd@example.com',
          tags: [['a', 'b'], ['a'], ['c']][i % 3],
          subject: `email ${i}`,
          scheduledAt: inOneDay(),
        }),
      );
      expect(response.status).toBe(202);
      created.push(response.body);
    }
    for (const i of [1, 4]) expect((await test.post(`/v1/emails/${created[i].id}/cancel`)).status).toBe(200);
  });
  afterAll(() => stack?.stop());

  it('lists newest first with only the list fields, an exact totalCount and default limit 10', async () => {
    const { ids: page, body } = await listIds('');
    expect(page).toEqual(ids([13, 12, 11, 10, 9, 8, 7, 6, 5, 4]));
    expect(body).toMatchObject({ object: 'list', hasMore: true, totalCount: 14 });
    expect(Object.keys(body.data[0]).sort()).toEqual(['createdAt', 'from', 'id', 'object', 'status', 'subject', 'to']);
    expect(body.data[1]).toMatchObject({ status: 'suppressed', to: ['blocked@example.com'], from: 'Acme <hi@acme.test>' });
  });

  it('pages forward with starting_after and back with ending_before, hasMore correct both ways', async () => {
    const first = await listIds('?limit=5');
    expect(first.ids).toEqual(ids([13, 12, 11, 10, 9]));
    expect(first.body.hasMore).toBe(true);
    const second = await listIds(`?limit=5&starting_after=${created[9].id}`);
    expect(second.ids).toEqual(ids([8, 7, 6, 5, 4]));
    expect(second.body.hasMore).toBe(true);
    const third = await listIds(`?limit=5&starting_after=${created[4].id}`);
    expect(third.ids).toEqual(ids([3, 2, 1, 0]));
    expect(third.body).toMatchObject({ hasMore: false, totalCount: 14 });

    const back = await listIds(`?limit=5&ending_before=${created[3].id}`);
    expect(back.ids).toEqual(ids([8, 7, 6, 5, 4]));
    expect(back.body.hasMore).toBe(true);
    const backToStart = await listIds(`?limit=5&ending_before=${created[8].id}`);
    expect(backToStart.ids).toEqual(ids([13, 12, 11, 10, 9]));
    expect(backToStart.body).toMatchObject({ hasMore: false, totalCount: 14 });
    const beyond = await listIds(`?limit=5&ending_before=${created[13].id}`);
    expect(beyond.ids).toEqual([]);
    expect(beyond.body.hasMore).toBe(false);
  });

  it('filters by status (any of the 8 states)', async () => {
    expect((await listIds('?status=cancelled')).ids).toEqual(ids([4, 1]));
    expect((await listIds('?status=suppressed')).ids).toEqual(ids([12]));
    const scheduled = await listIds('?status=scheduled&limit=3');
    expect(scheduled.body).toMatchObject({ totalCount: 11, hasMore: true });
    expect((await listIds('?status=bounced')).body).toMatchObject({ data: [], totalCount: 0, hasMore: false });
  });

  it('filters by a `to` address, case-insensitively', async () => {
    const even = await listIds('?to=EVEN@example.COM');
    expect(even.ids).toEqual(ids([10, 8, 6, 4, 2, 0]));
    expect(even.body.totalCount).toBe(6);
    const oddPaged = await listIds(`?to=odd@example.com&limit=2&starting_after=${created[11].id}`);
    expect(oddPaged.ids).toEqual(ids([9, 7]));
    expect(oddPaged.body).toMatchObject({ hasMore: true, totalCount: 7 });
  });

  it('filters by tags, every listed tag must match (ALL)', async () => {
    expect((await listIds('?tags=a')).body.totalCount).toBe(10);
    expect((await listIds('?tags=a,b')).ids).toEqual(ids([12, 9, 6, 3, 0]));
    expect((await listIds('?tags=b,c')).body.totalCount).toBe(0);
  });

  it('filters by from_date (inclusive) and to_date (exclusive)', async () => {
    const from = await listIds(`?from_date=${encodeURIComponent(created[5].createdAt)}&limit=100`);
    expect(from.ids).toEqual(ids([13, 12, 11, 10, 9, 8, 7, 6, 5]));
    const before = await listIds(`?to_date=${encodeURIComponent(created[5].createdAt)}`);
    expect(before.ids).toEqual(ids([4, 3, 2, 1, 0]));
    expect(before.body).toMatchObject({ totalCount: 5, hasMore: false });
    const window = await listIds(`?from_date=${created[2].createdAt}&to_date=${created[4].createdAt}&status=scheduled`);
    expect(window.ids).toEqual(ids([3, 2]));
  });

  it('reads a bound finer than a millisecond (as Python\'s isoformat() writes it) alike in the page and in totalCount', async () => {
    // createdAt is kept in whole milliseconds, so …20.020500 lies after an email created at …20.020: from it leaves that email out, up to it takes it in.
    const justAfter = encodeURIComponent(created[5].createdAt.replace('Z', '500+00:00'));
    const from = await listIds(`?from_date=${justAfter}&limit=100`);
    expect(from.ids).toEqual(ids([13, 12, 11, 10, 9, 8, 7, 6]));
    expect(from.body.totalCount).toBe(8);
    const before = await listIds(`?to_date=${justAfter}&limit=100`);
    expect(before.ids).toEqual(ids([5, 4, 3, 2, 1, 0]));
    expect(before.body.totalCount).toBe(6);
  });

  it('takes a range that ends past its start by less than a millisecond, which holds the emails of that millisecond', async () => {
    // [ …20.020, …20.0205 ) is [ …20.020, …20.021 ) in whole milliseconds: email #5's own millisecond.
    const start = created[5].createdAt;
    const end = encodeURIComponent(start.replace('Z', '500+00:00'));
    const response = await test.get(`/v1/emails?from_date=${start}&to_date=${end}`);
    expect(response.status).toBe(200);
    expect(response.body.data.map((item: Item) => item.id)).toContain(created[5].id);
    expect(response.body.totalCount).toBe(response.body.data.length);
  });

  it('takes a date before 1970, where no email id can begin: from it lists every email, before it none', async () => {
    const all = await listIds('?from_date=1969-07-20T20:17:00Z&limit=100');
    expect(all.ids).toEqual(ids([13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]));
    expect(all.body).toMatchObject({ totalCount: 14, hasMore: false });
    const none = await listIds('?to_date=1900-01-01');
    expect(none.body).toMatchObject({ data: [], totalCount: 0, hasMore: false });
  });

  it.each(['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.0000000', '0099-12-31', '0001-01-01T00:00:00%2B14:00'])('takes %s (Go\'s and .NET\'s zero time, years 1 to 99) as a bound before every email', async (bound) => {
    const all = await listIds(`?from_date=${bound}&limit=100`);
    expect(all.ids).toEqual(ids([13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]));
    expect(all.body).toMatchObject({ totalCount: 14, hasMore: false });
    const none = await listIds(`?to_date=${bound}`);
    expect(none.body).toMatchObject({ data: [], totalCount: 0, hasMore: false });
  });

  it.each(['0000-01-01T00:00:00Z', '0000-01', '0000'])('refuses %s (year 0000, which Postgres cannot read) with 422 naming the field', async (bound) => {
    for (const field of ['from_date', 'to_date']) {
      const response = await test.get(`/v1/emails?${field}=${bound}`);
      expect(response.status).toBe(422);
      expect(response.body.error.message).toMatch(new RegExp(`^${field}: must be an ISO 8601 timestamp`));
    }
  });

  it.each([
    ['status=unknown', /^status: must be one of/],
    ['to=not-an-address', /^to: /],
    ['tags=bad tag', /^tags: /],
    ['from_date=yesterday', /^from_date: must be an ISO 8601/],
    ['to_date=2025-13-45', /^to_date: /],
    ['limit=0', /^limit: /],
    ['limit=101', /^limit: /],
    ['starting_after=nope', /^starting_after: /],
  ])('answers 422 for the bad filter %s', async (query, message) => {
    const response = await test.get(`/v1/emails?${query.replace(' ', '%20')}`);
    expect(response.status).toBe(422);
    expect(response.body.error.message).toMatch(message);
  });

  it('retrieves the full object by id, and 404 not_found for an unknown id', async () => {
    const response = await test.get(`/v1/emails/${created[0].id}`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      id: created[0].id,
      object: 'email',
      status: 'scheduled',
      tags: ['a', 'b'],
      // As written, the domain lower-cased: the local part's case is the receiving host's to judge (RFC 5321 §2.4).
      recipients: [{ address: 'Even@example.com', kind: 'to', status: 'queued', attempts: 0, smtpCode: null, smtpReply: null, nextAttemptAt: null }],
      // A body the send left out, and a time that has not come yet, read null rather than being absent.
      text: 'Hi there',
      html: null,
      opens: 0,
      clicks: 0,
      firstOpenedAt: null,
      lastOpenedAt: null,
      deliveredAt: null,
    });
    const missing = await test.get('/v1/emails/email_01ARZ3NDEKTSV4RRFFQ69G5FAV');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
  });

  it('keeps modes apart: a live key sees none of the test emails', async () => {
    const live = await listIds('', stack.api);
    expect(live.body).toMatchObject({ data: [], totalCount: 0, hasMore: false });
    expect((await stack.api.get(`/v1/emails/${created[0].id}`)).status).toBe(404);
  });

  it('shows a key with domainRestrictions only emails from its domains', async () => {
    const restricted = stack.api.withKey((await stack.issueKey({ mode: 'test', domainRestrictions: ['acme.test'] })).key);
    const listed = await listIds('?limit=100', restricted);
    expect(listed.body.totalCount).toBe(13);
    expect(listed.ids).not.toContain(created[13].id);
    expect((await restricted.get(`/v1/emails/${created[13].id}`)).status).toBe(404);
    expect((await restricted.get(`/v1/emails/${created[0].id}`)).status).toBe(200);
  });

  it('needs emails:list to list and emails:read to retrieve', async () => {
    const sender = stack.api.withKey((await stack.issueKey({ mode: 'test', permissions: ['emails:send'] })).key);
    expect((await sender.get('/v1/emails')).status).toBe(403);
    expect((await sender.get(`/v1/emails/${created[0].id}`)).status).toBe(403);
    const lister = stack.api.withKey((await stack.issueKey({ mode: 'test', permissions: ['emails:list'] })).key);
    expect((await lister.get('/v1/emails')).status).toBe(200);
    expect((await lister.get(`/v1/emails/${created[0].id}`)).status).toBe(403);
  });

  // Last, as it restarts the emails service on a database whose sessions run in another time zone.
  it('reads a bare from_date or to_date as a UTC day also when Postgres runs in another time zone, as one set up with its machine\'s zone does', async () => {
    const first = created[0].createdAt;
    const last = created[13].createdAt;
    const nextDay = new Date(Date.parse(last.slice(0, 10)) + 24 * 3600 * 1000).toISOString().slice(0, 10);
    // Read in the session's zone, a day would begin at 12:00 UTC (UTC−12) or at 10:00 UTC the day before (UTC+14): one of them falls among today's emails.
    const beforeNoon = Number(last.slice(11, 13)) < 12;
    const [zone, query] = beforeNoon ? ['Etc/GMT+12', `from_date=${first.slice(0, 10)}`] : ['Etc/GMT-14', `to_date=${nextDay}`];
    const database = new URL(stack.databaseUrl).pathname.slice(1);
    await queryDatabase(stack.databaseUrl, `ALTER DATABASE "${database}" SET TimeZone = '${zone}'`);
    await stack.stopApp('emails');
    await stack.startApp('emails');
    const listed = await listIds(`?${query}&limit=100`);
    expect(listed.ids).toEqual(ids([13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]));
    expect(listed.body.totalCount).toBe(14);
  });
});
