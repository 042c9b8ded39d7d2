import { startStack, Stack } from '@mailroom/testing';

interface Item {
  id: string;
  createdAt: string;
}

describe('GET /v1/api-keys', () => {
  let stack: Stack;
  /** Every live key, newest first: the 24 created here and the stack's root key. */
  let live: string[];

  beforeAll(async () => {
    stack = await startStack({ apps: ['keys', 'gateway'] });
    const created: string[] = [];
    for (let index = 0; index < 24; index += 1) {
      const response = await stack.api.post('/v1/api-keys', { name: `key ${index}` });
      created.push(response.body.id);
    }
    const all = await stack.api.get('/v1/api-keys?limit=100');
    live = all.body.data.map((item: Item) => item.id);
    expect(live).toHaveLength(25);
    expect(live.slice(0, 24)).toEqual([...created].reverse());
  });
  afterAll(() => stack?.stop());

  const ids = (body: { data: Item[] }) => body.data.map((item) => item.id);

  it('answers the list envelope, 10 items by default, newest first, with the exact total', async () => {
    const response = await stack.api.get('/v1/api-keys');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ object: 'list', data: expect.any(Array), hasMore: true, totalCount: 25 });
    expect(ids(response.body)).toEqual(live.slice(0, 10));
    const created = response.body.data.map((item: Item) => Date.parse(item.createdAt));
    expect(created).toEqual([...created].sort((a, b) => b - a));
    for (const item of response.body.data) expect(item).not.toHaveProperty('key');
  });

  it('pages forward with starting_after until hasMore is false', async () => {
    const first = await stack.api.get('/v1/api-keys?limit=10');
    const second = await stack.api.get(`/v1/api-keys?limit=10&starting_after=${live[9]}`);
    const third = await stack.api.get(`/v1/api-keys?limit=10&starting_after=${live[19]}`);
    expect([first.body.hasMore, second.body.hasMore, third.body.hasMore]).toEqual([true, true, false]);
    expect([...ids(first.body), ...ids(second.body), ...ids(third.body)]).toEqual(live);
    expect([first.body.totalCount, second.body.totalCount, third.body.totalCount]).toEqual([25, 25, 25]);
  });

  it('pages backward with ending_before, newest first within a page, until hasMore is false', async () => {
    const third = await stack.api.get(`/v1/api-keys?limit=10&starting_after=${live[19]}`);
    const second = await stack.api.get(`/v1/api-keys?limit=10&ending_before=${ids(third.body)[0]}`);
    expect(ids(second.body)).toEqual(live.slice(10, 20));
    expect(second.body.hasMore).toBe(true);
    const first = await stack.api.get(`/v1/api-keys?limit=10&ending_before=${ids(second.body)[0]}`);
    expect(ids(first.body)).toEqual(live.slice(0, 10));
    expect(first.body.hasMore).toBe(false);
    expect(first.body.totalCount).toBe(25);
  });

  it('says hasMore exactly at a page boundary', async () => {
    const exact = await stack.api.get(`/v1/api-keys?limit=5&starting_after=${live[19]}`);
    expect(ids(exact.body)).toEqual(live.slice(20));
    expect(exact.body.hasMore).toBe(false);
    const newest = await stack.api.get(`/v1/api-keys?limit=5&ending_before=${live[5]}`);
    expect(ids(newest.body)).toEqual(live.slice(0, 5));
    expect(newest.body.hasMore).toBe(false);
    const past = await stack.api.get(`/v1/api-keys?starting_after=${live[24]}`);
    expect(past.body).toEqual({ object: 'list', data: [], hasMore: false, totalCount: 25 });
  });

  it('accepts limit up to 100', async () => {
    const response = await stack.api.get('/v1/api-keys?limit=100');
    expect(response.status).toBe(200);
    expect(response.body.data).toHaveLength(25);
    expect(response.body.hasMore).toBe(false);
  });

  it.each([
    ['limit=101', 'limit'],
    ['limit=0', 'limit'],
    ['limit=ten', 'limit'],
    ['limit=1.5', 'limit'],
    ['limit=0x10 (hexadecimal)', 'limit'],
    ['limit=1e1 (an exponent)', 'limit'],
    ['limit=%2010 (a leading space)', 'limit'],
    ['starting_after=nonsense', 'starting_after'],
    ['ending_before=key_1', 'ending_before'],
    ['colour=blue', 'colour'],
  ])('answers 422 naming the parameter for %s', async (query, field) => {
    const response = await stack.api.get(`/v1/api-keys?${query.split(' ')[0]}`);
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe('validation_error');
    expect(response.body.error.message).toMatch(new RegExp(`^${field}\\b`));
  });

  it('refuses starting_after and ending_before together', async () => {
    const response = await stack.api.get(`/v1/api-keys?starting_after=${live[3]}&ending_before=${live[1]}`);
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe('validation_error');
    expect(response.body.error.message).toMatch(/starting_after|ending_before/);
  });

  it('leaves deleted keys out of the list and the count', async () => {
    const doomed = await stack.api.post('/v1/api-keys', { name: 'doomed' });
    expect((await stack.api.get('/v1/api-keys')).body.totalCount).toBe(26);
    await stack.api.delete(`/v1/api-keys/${doomed.body.id}`);
    const after = await stack.api.get('/v1/api-keys?limit=100');
    expect(after.body.totalCount).toBe(25);
    expect(ids(after.body)).not.toContain(doomed.body.id);
  });

  describe('test mode isolation', () => {
    let testKey: string;
    let testIds: string[];

    beforeAll(async () => {
      const created = await stack.api.post('/v1/api-keys', { name: 'test parent', mode: 'test', permissions: ['api-keys:*'] });
      testKey = created.body.key;
      const child = await stack.api.post('/v1/api-keys', { name: 'test child' }, { key: testKey });
      testIds = [child.body.id, created.body.id];
    });

    it('a test key lists only test keys, and a live key only live keys', async () => {
      const asTest = await stack.api.get('/v1/api-keys', { key: testKey });
      expect(ids(asTest.body)).toEqual(testIds);
      expect(asTest.body.totalCount).toBe(2);
      const asLive = await stack.api.get('/v1/api-keys?limit=100');
      expect(asLive.body.totalCount).toBe(25);
      expect(ids(asLive.body)).not.toEqual(expect.arrayContaining([testIds[0]]));
      expect(ids(asLive.body)).not.toEqual(expect.arrayContaining([testIds[1]]));
    });

    it('a test key cannot get, change or delete a live key (404), nor a live key a test key', async () => {
      for (const [key, id] of [
        [testKey, live[0]],
        [stack.rootKey, testIds[0]],
      ]) {
        for (const response of [
          await stack.api.get(`/v1/api-keys/${id}`, { key }),
          await stack.api.patch(`/v1/api-keys/${id}`, { name: 'hijacked' }, { key }),
          await stack.api.delete(`/v1/api-keys/${id}`, { key }),
        ]) {
          expect(response.status).toBe(404);
          expect(response.body.error.code).toBe('not_found');
        }
      }
      expect((await stack.api.get(`/v1/api-keys/${testIds[0]}`, { key: testKey })).body.name).toBe('test child');
      expect((await stack.api.get(`/v1/api-keys/${live[0]}`)).body.name).toBe('key 23');
    });
  });
});
