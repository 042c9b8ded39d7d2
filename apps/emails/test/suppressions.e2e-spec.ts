import { Client } from 'pg';
import { ApiClient, startStack, Stack } from '@mailroom/testing';

describe('/v1/suppressions', () => {
  let stack: Stack;
  let test: ApiClient;

  beforeAll(async () => {
    stack = await startStack({ env: { RATE_LIMIT_PER_SECOND: '0' } });
    test = stack.api.withKey((await stack.issueKey({ mode: 'test' })).key);
  });
  afterAll(() => stack?.stop());

  it('adds an address (lower-cased, reason manual by default) with 201, and re-adding updates the reason', async () => {
    const created = await test.post('/v1/suppressions', { email: 'Someone@Example.com' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: 'suppression', email: 'someone@example.com', reason: 'manual', details: null });
    const again = await test.post('/v1/suppressions', { email: 'someone@example.com', reason: 'unsubscribe', details: 'footer link' });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ reason: 'unsubscribe', details: 'footer link', createdAt: created.body.createdAt });
  });

  it.each([
    [{ email: 'nope' }, /^email: 'nope' is not a valid email address/],
    // Punycode that decodes to nothing: no such domain can exist.
    [{ email: 'a@xn--zz.example' }, /^email: 'a@xn--zz.example' is not a valid email address/],
    // A valid address Mailroom cannot send to says why, rather than that it is invalid and no more.
    [{ email: 'jörg@example.com' }, /^email: 'jörg@example.com' is not an address Mailroom sends to: its local part \(before the @\) is not ASCII, which needs SMTPUTF8/],
    [{}, /^email: /],
    [{ email: 'a@example.com', reason: 'because' }, /^reason: must be one of/],
    [{ email: 'a@example.com', extra: 1 }, /^extra: is not a known field/],
  ])('answers 422 naming the field for %j', async (body, message) => {
    const response = await test.post('/v1/suppressions', body);
    expect(response.status).toBe(422);
    expect(response.body.error.message).toMatch(message);
  });

  it('lists newest first with cursors in both directions and an exact totalCount', async () => {
    const other = stack.api.withKey((await stack.issueKey({ mode: 'test' })).key);
    // The list is per mode, shared by the mode's keys: count what other tests added first.
    const before = (await other.get('/v1/suppressions?limit=1')).body.totalCount;
    for (let i = 0; i < 5; i++) expect((await other.post('/v1/suppressions', { email: `page${i}@example.com` })).status).toBe(201);
    const first = await other.get('/v1/suppressions?limit=2');
    expect(first.body.data.map((s: { email: string }) => s.email)).toEqual(['page4@example.com', 'page3@example.com']);
    expect(first.body).toMatchObject({ object: 'list', hasMore: true, totalCount: before + 5 });
    const second = await other.get('/v1/suppressions?limit=2&starting_after=page3@example.com');
    expect(second.body.data.map((s: { email: string }) => s.email)).toEqual(['page2@example.com', 'page1@example.com']);
    expect(second.body.hasMore).toBe(true);
    const back = await other.get('/v1/suppressions?limit=2&ending_before=page2@example.com');
    expect(back.body.data.map((s: { email: string }) => s.email)).toEqual(['page4@example.com', 'page3@example.com']);
    expect(back.body.hasMore).toBe(false);
    const unknown = await other.get('/v1/suppressions?starting_after=ghost@example.com');
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.message).toMatch(/^starting_after: /);
  });

  it('says how to write a plus address\'s + in a cursor when a query string turned it into a space', async () => {
    expect((await test.post('/v1/suppressions', { email: 'reader+news@example.com' })).status).toBe(201);
    const unencoded = await test.get('/v1/suppressions?limit=1&starting_after=reader+news@example.com');
    expect(unencoded.status).toBe(422);
    expect(unencoded.body.error.message).toBe(
      'starting_after: must be an address from a previous page that is still on the list (a + in a query string reads as a space: write it %2B)',
    );
    expect((await test.get('/v1/suppressions?limit=1&starting_after=reader%2Bnews@example.com')).status).toBe(200);
  });

  it.each([
    ['the display-name form of an address on the list', 'Reader Ann <reader-ann@example.com>'],
    ['an address with a space that is not on the list with a + either', 'ghost news@example.com'],
  ])('gives no %2B hint for %s: no + address of the list was meant', async (_, cursor) => {
    expect((await test.post('/v1/suppressions', { email: 'reader-ann@example.com' })).status).toBe(201);
    const response = await test.get(`/v1/suppressions?limit=1&starting_after=${encodeURIComponent(cursor)}`);
    expect(response.status).toBe(422);
    expect(response.body.error.message).toBe('starting_after: must be an address from a previous page that is still on the list');
  });

  // As GET /v1/emails refuses an empty id: a client whose cursor came out empty would otherwise page through page one for ever.
  it.each(['starting_after', 'ending_before'])('refuses an empty %s: no address is on a previous page', async (cursor) => {
    const response = await test.get(`/v1/suppressions?limit=1&${cursor}=`);
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe('validation_error');
    expect(response.body.error.message).toMatch(new RegExp(`^${cursor}: must be an address from a previous page`));
  });

  it.each(['0x10', '1e1', '%2010'])('refuses limit=%s: decimal digits only', async (limit) => {
    const response = await test.get(`/v1/suppressions?limit=${limit}`);
    expect(response.status).toBe(422);
    expect(response.body.error).toEqual({ code: 'validation_error', message: 'limit: must be an integer between 1 and 100' });
  });

  it('deletes an address, then 404 for one not on the list', async () => {
    await test.post('/v1/suppressions', { email: 'remove@example.com' });
    const deleted = await test.delete('/v1/suppressions/Remove@Example.com');
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ object: 'suppression', email: 'remove@example.com', deleted: true });
    const listed = await test.get('/v1/suppressions?limit=100');
    expect(listed.body.data.map((s: { email: string }) => s.email)).not.toContain('remove@example.com');
    const again = await test.delete('/v1/suppressions/remove@example.com');
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('not_found');
  });

  it('answers a DELETE of a blank address 422 naming email, not 404 for an empty address', async () => {
    for (const blank of ['%20', '%20%09%20']) {
      const response = await test.delete(`/v1/suppressions/${blank}`);
      expect(response.status).toBe(422);
      expect(response.body.error).toEqual({ code: 'validation_error', message: 'email: must not be blank' });
    }
  });

  it('answers an addition 201 with what it wrote even when a DELETE of the address commits right after it', async () => {
    // The addition wrote its row, then read it back in a second statement: a DELETE committed between the two left
    // nothing to read, and the answer was 500. A trigger deletes the row as soon as the addition has written it,
    // standing in for that DELETE without a race.
    const db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
    try {
      await db.query(`CREATE FUNCTION emails.vanish_suppression() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN DELETE FROM emails.suppressions WHERE mode = NEW.mode AND address = NEW.address; RETURN NULL; END $$`);
      await db.query(`CREATE TRIGGER vanish_suppression AFTER INSERT OR UPDATE ON emails.suppressions
        FOR EACH ROW WHEN (NEW.address = 'vanishing@example.com') EXECUTE FUNCTION emails.vanish_suppression()`);
      const added = await test.post('/v1/suppressions', { email: 'Vanishing@Example.com', reason: 'unsubscribe' });
      expect({ status: added.status, body: added.body }).toEqual({
        status: 201,
        body: { object: 'suppression', email: 'vanishing@example.com', reason: 'unsubscribe', details: null, createdAt: expect.any(String) },
      });
      expect((await test.delete('/v1/suppressions/vanishing@example.com')).status).toBe(404);
    } finally {
      await db.query('DROP TRIGGER IF EXISTS vanish_suppression ON emails.suppressions');
      await db.query('DROP FUNCTION IF EXISTS emails.vanish_suppression()');
      await db.end();
    }
  });

  it('stores an internationalized domain in punycode and finds it under either spelling', async () => {
    const added = await test.post('/v1/suppressions', { email: 'Zoë <zoe@Bücher.example>' });
    expect(added.status).toBe(201);
    expect(added.body.email).toBe('zoe@xn--bcher-kva.example');
    const deleted = await test.delete(`/v1/suppressions/${encodeURIComponent('ZOE@bücher.example')}`);
    expect(deleted.body).toEqual({ object: 'suppression', email: 'zoe@xn--bcher-kva.example', deleted: true });
  });

  it('deletes an address given in the display-name form it was added in', async () => {
    expect((await test.post('/v1/suppressions', { email: 'Ann <Ann@Named.example>' })).body.email).toBe('ann@named.example');
    const deleted = await test.delete(`/v1/suppressions/${encodeURIComponent('Ann <Ann@Named.example>')}`);
    expect(deleted.body).toEqual({ object: 'suppression', email: 'ann@named.example', deleted: true });
  });

  it('keeps the live list apart from the test list', async () => {
    await stack.api.post('/v1/suppressions', { email: 'live-only@example.com' });
    expect((await test.get('/v1/suppressions?limit=100')).body.data.map((s: { email: string }) => s.email)).not.toContain('live-only@example.com');
    expect((await test.delete('/v1/suppressions/live-only@example.com')).status).toBe(404);
  });

  /**
   * The list is one per mode, shared by every sending domain: a bounce or complaint from one domain's mail
   * protects the others too. A key restricted to some domains must not read other domains' recipients from
   * it, take off an address another domain's complaint put there, or rewrite that entry's reason.
   */
  it('refuses a key with domainRestrictions with 403 on every route, and leaves the list as it was', async () => {
    await test.post('/v1/suppressions', { email: 'complainer@example.com', reason: 'complaint', details: 'feedback loop' });
    const restricted = stack.api.withKey((await stack.issueKey({ mode: 'test', domainRestrictions: ['allowed.example'] })).key);
    for (const response of [
      await restricted.get('/v1/suppressions'),
      await restricted.post('/v1/suppressions', { email: 'complainer@example.com' }),
      await restricted.delete('/v1/suppressions/complainer@example.com'),
    ]) {
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('forbidden');
      expect(response.body.error.message).toMatch(/restricted to allowed\.example/);
    }
    const listed = (await test.get('/v1/suppressions?limit=100')).body.data;
    expect(listed).toContainEqual(expect.objectContaining({ email: 'complainer@example.com', reason: 'complaint', details: 'feedback loop' }));
  });

  it('needs emails:read to list and emails:send to add or delete', async () => {
    const reader = stack.api.withKey((await stack.issueKey({ mode: 'test', permissions: ['emails:read'] })).key);
    expect((await reader.get('/v1/suppressions')).status).toBe(200);
    expect((await reader.post('/v1/suppressions', { email: 'x@example.com' })).status).toBe(403);
    expect((await reader.delete('/v1/suppressions/x@example.com')).status).toBe(403);
    const sender = stack.api.withKey((await stack.issueKey({ mode: 'test', permissions: ['emails:send'] })).key);
    expect((await sender.get('/v1/suppressions')).status).toBe(403);
    expect((await sender.post('/v1/suppressions', { email: 'x@example.com' })).status).toBe(201);
  });
});
