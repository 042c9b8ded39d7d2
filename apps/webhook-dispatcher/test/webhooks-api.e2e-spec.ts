import { Stack, startStack } from '@mailroom/testing';

describe('webhooks management API', () => {
  let stack: Stack;
  const url = 'https://hooks.example.com/mailroom';

  beforeAll(async () => {
    stack = await startStack({ apps: ['keys', 'webhook-dispatcher', 'gateway'] });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('creates a webhook and shows its secret once; GET shows exactly the interface fields, and …/secret reveals it again', async () => {
    const created = await stack.api.post('/v1/webhooks', { url, events: ['email.delivered', 'email.bounced'], description: 'CRM sync' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: 'webhook', url, events: ['email.delivered', 'email.bounced'], status: 'active', failureCount: 0 });
    expect(created.body.id).toMatch(/^wh_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const fetched = await stack.api.get(`/v1/webhooks/${created.body.id}`);
    expect(Object.keys(fetched.body).sort()).toEqual(
      ['createdAt', 'description', 'domainRestrictions', 'events', 'failureCount', 'id', 'lastDeliveryAt', 'lastDeliveryStatus', 'object', 'status', 'url'].sort(),
    );
    expect(fetched.body).toMatchObject({ description: 'CRM sync', domainRestrictions: [], lastDeliveryAt: null, lastDeliveryStatus: null });
    expect((await stack.api.get(`/v1/webhooks/${created.body.id}/secret`)).body).toEqual({ object: 'webhook_secret', secret: created.body.secret });
  });

  it('names the type of the secret it answers, as every object of the interface does, and so does a rotation', async () => {
    const created = await stack.api.post('/v1/webhooks', { url, events: ['*'] });
    const rotated = await stack.api.post(`/v1/webhooks/${created.body.id}/secret/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({ object: 'webhook_secret', secret: expect.stringMatching(/^whsec_/), previousSecretExpiresAt: expect.any(String) });
    expect((await stack.api.get(`/v1/webhooks/${created.body.id}/secret`)).body).toEqual({ object: 'webhook_secret', secret: rotated.body.secret });
  });

  it.each([
    [{ url, events: ['email.delivered', 'email.nope'] }, /^events\[1\]: 'email.nope' is not an event kind/],
    [{ url, events: [] }, /^events: must list at least one/],
    [{ url, events: 'email.delivered' }, /^events: /],
    [{ url: 'http://hooks.example.com/', events: ['*'] }, /^url: must be an https URL/],
    [{ url: 'not a url', events: ['*'] }, /^url: must be an absolute URL/],
    [{ url: 'https://127.0.0.1/', events: ['*'] }, /^url: must not point at a loopback address/],
    [{ url: 'https://[64:ff9b::7f00:1]/', events: ['*'] }, /^url: must not point at a NAT64 address of a loopback address \(64:ff9b::7f00:1\)$/],
    [{ url: 'https://[2002:7f00:1::]/', events: ['*'] }, /^url: must not point at a 6to4 address of a loopback address \(2002:7f00:1::\)$/],
    [{ events: ['*'] }, /^url: /],
    [{ url, events: ['*'], secret: 'mine' }, /^secret: is not a known field/],
    [{ url, events: ['*'], description: '  ' }, /^description: must not be blank/],
  ])('answers 422 naming the field for %j', async (body, message) => {
    const response = await stack.api.post('/v1/webhooks', body);
    expect(response.status).toBe(422);
    expect(response.body.error).toMatchObject({ code: 'validation_error' });
    expect(response.body.error.message).toMatch(message);
  });

  it('updates url, events, description and status; active resets failureCount', async () => {
    const { body: webhook } = await stack.api.post('/v1/webhooks', { url, events: ['*'] });
    const updated = await stack.api.patch(`/v1/webhooks/${webhook.id}`, { url: 'https://other.example.com/h', events: ['domain.verified'], description: null, status: 'disabled' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ url: 'https://other.example.com/h', events: ['domain.verified'], description: null, status: 'disabled' });
    expect((await stack.api.patch(`/v1/webhooks/${webhook.id}`, { status: 'active' })).body).toMatchObject({ status: 'active', failureCount: 0 });
    expect((await stack.api.patch(`/v1/webhooks/${webhook.id}`, { status: 'failing' })).status).toBe(422);
    expect((await stack.api.patch(`/v1/webhooks/${webhook.id}`, { events: ['x'] })).body.error.message).toMatch(/^events\[0\]/);
    // null clears the description; an empty one would be answered as if it said something.
    expect((await stack.api.patch(`/v1/webhooks/${webhook.id}`, { description: '' })).body.error.message).toMatch(/^description: must not be empty/);
    // Only description can be cleared; null for the others is refused rather than silently ignored.
    for (const field of ['url', 'events', 'status']) {
      const refused = await stack.api.patch(`/v1/webhooks/${webhook.id}`, { [field]: null });
      expect(refused.status).toBe(422);
      expect(refused.body.error.message).toMatch(new RegExp(`^${field}: `));
    }
  });

  it('refuses an events item longer than any kind with 422 naming it before it reaches the bus (a 1.1 MB one would not fit a NATS message), on create and on PATCH', async () => {
    const events = ['email.sent', 'x'.repeat(1_100_000)];
    const { body: webhook } = await stack.api.post('/v1/webhooks', { url, events: ['*'] });
    const listed = (await stack.api.get('/v1/webhooks?limit=100')).body.totalCount;
    for (const response of [await stack.api.post('/v1/webhooks', { url, events }), await stack.api.patch(`/v1/webhooks/${webhook.id}`, { events })]) {
      expect(response.status).toBe(422);
      expect(response.body.error).toEqual({ code: 'validation_error', message: 'events[1]: must be at most 64 characters' });
    }
    expect((await stack.api.get('/v1/webhooks?limit=100')).body.totalCount).toBe(listed);
    expect((await stack.api.get(`/v1/webhooks/${webhook.id}`)).body.events).toEqual(['*']);
  });

  it('collapses duplicate kinds in events, on create and on PATCH', async () => {
    const created = await stack.api.post('/v1/webhooks', { url, events: ['email.sent', 'email.bounced', 'email.sent'] });
    expect(created.status).toBe(201);
    expect(created.body.events).toEqual(['email.sent', 'email.bounced']);
    const patched = await stack.api.patch(`/v1/webhooks/${created.body.id}`, { events: ['*', 'email.opened', '*'] });
    expect(patched.body.events).toEqual(['*', 'email.opened']);
    expect((await stack.api.get(`/v1/webhooks/${created.body.id}`)).body.events).toEqual(['*', 'email.opened']);
  });

  it('answers url as the URL it calls, which the document promises is a URI: spaces around it dropped, host in lower-case punycode, on create and on PATCH', async () => {
    const created = await stack.api.post('/v1/webhooks', { url: ' https://Hooks.Example.com:443/in box?a=1 ', events: ['*'] });
    expect(created.status).toBe(201);
    expect(created.body.url).toBe('https://hooks.example.com/in%20box?a=1');
    const patched = await stack.api.patch(`/v1/webhooks/${created.body.id}`, { url: 'https://Bücher.example/hooks' });
    expect(patched.body.url).toBe('https://xn--bcher-kva.example/hooks');
    expect((await stack.api.get(`/v1/webhooks/${created.body.id}`)).body.url).toBe('https://xn--bcher-kva.example/hooks');
    expect((await stack.api.get('/v1/webhooks?limit=1')).body.data[0].url).toBe('https://xn--bcher-kva.example/hooks');
  });

  it('lists newest first with limit, cursors, status filter and totalCount', async () => {
    const testKey = await stack.issueKey({ mode: 'test' });
    const api = stack.api.withKey(testKey.key);
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) ids.push((await api.post('/v1/webhooks', { url, events: ['*'] })).body.id);
    await api.patch(`/v1/webhooks/${ids[0]}`, { status: 'disabled' });
    const first = await api.get('/v1/webhooks?limit=2');
    expect(first.body).toMatchObject({ object: 'list', hasMore: true, totalCount: 3 });
    expect(first.body.data.map((item: any) => item.id)).toEqual([ids[2], ids[1]]);
    expect(Object.keys(first.body.data[0]).sort()).toEqual(['createdAt', 'events', 'id', 'lastDeliveryAt', 'object', 'status', 'url']);
    const next = await api.get(`/v1/webhooks?limit=2&starting_after=${ids[1]}`);
    expect(next.body.data.map((item: any) => item.id)).toEqual([ids[0]]);
    expect(next.body.hasMore).toBe(false);
    const disabled = await api.get('/v1/webhooks?status=disabled');
    expect(disabled.body.data.map((item: any) => item.id)).toEqual([ids[0]]);
    const active = await api.get('/v1/webhooks?status=active');
    expect(active.body).toMatchObject({ object: 'list', hasMore: false, totalCount: 2 });
    expect(active.body.data.map((item: any) => item.id)).toEqual([ids[2], ids[1]]);
    expect((await api.get('/v1/webhooks?status=failing')).body).toEqual({ object: 'list', data: [], hasMore: false, totalCount: 0 });
    expect((await api.get('/v1/webhooks?limit=101')).status).toBe(422);
    expect((await api.get('/v1/webhooks?status=paused')).status).toBe(422);
    const defaults = await api.get('/v1/webhooks');
    expect(defaults.body.data).toHaveLength(3);
  });

  it('answers a retry of a delivery that is not the webhook\'s 404, even while that webhook is disabled; its own delivery 409', async () => {
    const { body: owner } = await stack.api.post('/v1/webhooks', { url, events: ['*'] });
    const { body: other } = await stack.api.post('/v1/webhooks', { url, events: ['*'] });
    const { body: delivery } = await stack.api.post(`/v1/webhooks/${owner.id}/test`);
    for (const webhook of [owner, other]) await stack.api.patch(`/v1/webhooks/${webhook.id}`, { status: 'disabled' });
    for (const deliveryId of [delivery.id, 'whd_01JAAAAAAAAAAAAAAAAAAAAAAA']) {
      const refused = await stack.api.post(`/v1/webhooks/${other.id}/deliveries/${deliveryId}/retry`);
      expect({ status: refused.status, error: refused.body.error }).toEqual({ status: 404, error: { code: 'not_found', message: `No delivery with id '${deliveryId}' exists.` } });
    }
    const own = await stack.api.post(`/v1/webhooks/${owner.id}/deliveries/${delivery.id}/retry`);
    expect({ status: own.status, code: own.body.error?.code }).toEqual({ status: 409, code: 'conflict' });
  });

  it('keeps test and live webhooks apart: a test key cannot see a live webhook', async () => {
    const { body: live } = await stack.api.post('/v1/webhooks', { url, events: ['*'] });
    const testKey = await stack.issueKey({ mode: 'test' });
    const api = stack.api.withKey(testKey.key);
    expect((await api.get(`/v1/webhooks/${live.id}`)).status).toBe(404);
    expect((await api.get('/v1/webhooks?limit=100')).body.data.map((item: any) => item.id)).not.toContain(live.id);
  });

  it('deletes a webhook', async () => {
    const { body: webhook } = await stack.api.post('/v1/webhooks', { url, events: ['*'] });
    expect((await stack.api.delete(`/v1/webhooks/${webhook.id}`)).body).toEqual({ id: webhook.id, object: 'webhook', deleted: true });
    expect((await stack.api.get(`/v1/webhooks/${webhook.id}`)).status).toBe(404);
    expect((await stack.api.delete(`/v1/webhooks/${webhook.id}`)).status).toBe(404);
  });

  it('deletes a webhook once when several requests race to delete it: one 200, the rest 404', async () => {
    const { body: webhook } = await stack.api.post('/v1/webhooks', { url, events: ['*'] });
    const answers = await Promise.all(Array.from({ length: 6 }, () => stack.api.delete(`/v1/webhooks/${webhook.id}`)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 404, 404, 404, 404, 404]);
  });

  it('requires webhooks:* on every route', async () => {
    const { body: webhook } = await stack.api.post('/v1/webhooks', { url, events: ['*'] });
    const key = await stack.issueKey({ permissions: ['emails:send', 'domains:*'] });
    const api = stack.api.withKey(key.key);
    const routes: Array<[string, string]> = [
      ['POST', '/v1/webhooks'],
      ['GET', '/v1/webhooks'],
      ['GET', `/v1/webhooks/${webhook.id}`],
      ['PATCH', `/v1/webhooks/${webhook.id}`],
      ['DELETE', `/v1/webhooks/${webhook.id}`],
      ['GET', `/v1/webhooks/${webhook.id}/secret`],
      ['POST', `/v1/webhooks/${webhook.id}/secret/rotate`],
      ['GET', `/v1/webhooks/${webhook.id}/deliveries`],
      ['POST', `/v1/webhooks/${webhook.id}/deliveries/whd_01JAAAAAAAAAAAAAAAAAAAAAAA/retry`],
      ['POST', `/v1/webhooks/${webhook.id}/test`],
    ];
    for (const [method, path] of routes) {
      const response = await api.request(method, path, method === 'POST' || method === 'PATCH' ? { body: { url, events: ['*'] } } : {});
      expect({ method, path, status: response.status }).toEqual({ method, path, status: 403 });
    }
  });
});
