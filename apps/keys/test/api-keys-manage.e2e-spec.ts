import { Client } from 'pg';
import { eventually, ExtraGateway, GatewayProcess, PROCESS_READY_TIMEOUT_MS, startExtraGateway, startGatewayProcess, startStack, Stack } from '@mailroom/testing';

const future = (ms: number) => new Date(Date.now() + ms).toISOString();
/** Every gateway replica here caches a verified key this long: a change that reached one sooner came over NATS. */
const KEY_CACHE_TTL_MS = 60_000;
/**
 * How long a change may take to reach a replica here: a sixth of that TTL. (It was 1 s, but one request through a
 * gateway, in this process or its own, can take about that long on a loaded CI machine, as in api-keys-read-cache.)
 */
const EVICTION_BOUND_MS = KEY_CACHE_TTL_MS / 6;

describe('GET, PATCH and DELETE /v1/api-keys/{id}', () => {
  let stack: Stack;
  /** A second gateway replica on the same NATS and database. */
  let replica: ExtraGateway;

  beforeAll(async () => {
    // Races here try each deleted key once more (twenty 401s from 127.0.0.1 in a test); the limit on failures has its own suite.
    stack = await startStack({ apps: ['keys', 'gateway'], env: { LAST_USED_FLUSH_MS: '100', AUTH_FAILURE_LIMIT: '0', KEY_CACHE_TTL_MS: String(KEY_CACHE_TTL_MS) } });
    replica = await startExtraGateway(stack);
  });
  afterAll(async () => {
    await replica?.close();
    await stack?.stop();
  });

  const create = async (body: Record<string, unknown> = {}) => (await stack.api.post('/v1/api-keys', { name: 'managed', permissions: ['api-keys:*'], ...body })).body;

  it('gets a key by id', async () => {
    const key = await create();
    const response = await stack.api.get(`/v1/api-keys/${key.id}`);
    expect(response.status).toBe(200);
    expect(response.body.id).toBe(key.id);
    expect(response.body.object).toBe('api_key');
  });

  it('patches name, permissions, restrictions and expiry', async () => {
    const key = await create();
    const expiresAt = future(86_400_000);
    const response = await stack.api.patch(`/v1/api-keys/${key.id}`, {
      name: 'renamed',
      permissions: ['emails:send', 'emails:read'],
      domainRestrictions: ['example.com'],
      ipRestrictions: ['10.0.0.0/8'],
      expiresAt,
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: key.id, name: 'renamed', permissions: ['emails:send', 'emails:read'], domainRestrictions: ['example.com'], ipRestrictions: ['10.0.0.0/8'], expiresAt });
    expect((await stack.api.get(`/v1/api-keys/${key.id}`)).body).toEqual(response.body);
    const cleared = await stack.api.patch(`/v1/api-keys/${key.id}`, { expiresAt: null, ipRestrictions: [] });
    expect(cleared.body).toMatchObject({ name: 'renamed', expiresAt: null, ipRestrictions: [] });
  });

  it('keeps an expired key expired: a PATCH of its expiresAt is 409, other fields may still change', async () => {
    const key = await create({ expiresAt: future(86_400_000) });
    const db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
    const expiredAt = new Date(Date.now() - 60_000);
    try {
      await db.query('UPDATE keys.api_keys SET expires_at = $2 WHERE id = $1', [key.id, expiredAt]);
    } finally {
      await db.end();
    }
    for (const expiresAt of [future(86_400_000), null]) {
      const revived = await stack.api.patch(`/v1/api-keys/${key.id}`, { expiresAt });
      expect({ expiresAt, status: revived.status, code: revived.body.error?.code }).toEqual({ expiresAt, status: 409, code: 'conflict' });
      expect(revived.body.error.message).toContain(expiredAt.toISOString());
    }
    const renamed = await stack.api.patch(`/v1/api-keys/${key.id}`, { name: 'expired, kept for the record' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'expired, kept for the record', expiresAt: expiredAt.toISOString() });
    expect((await stack.api.withKey(key.key).get('/v1/api-keys')).status).toBe(401);
  });

  it('validates a PATCH body like a creation (422 naming the field)', async () => {
    const key = await create();
    for (const [body, field] of [
      [{ name: '' }, 'name'],
      [{ permissions: ['root'] }, 'permissions'],
      [{ ipRestrictions: ['1.2.3'] }, 'ipRestrictions'],
      [{ ipRestrictions: ['fe80::1%eth0'] }, 'ipRestrictions'],
      [{ expiresAt: '2001-01-01T00:00:00Z' }, 'expiresAt'],
      [{ mode: 'test' }, 'mode'],
      // null clears only expiresAt; for a field that cannot be cleared it is an error, not a silent no-op.
      [{ name: null }, 'name'],
      [{ permissions: null }, 'permissions'],
      [{ domainRestrictions: null }, 'domainRestrictions'],
      [{ ipRestrictions: null }, 'ipRestrictions'],
    ] as const) {
      const response = await stack.api.patch(`/v1/api-keys/${key.id}`, body);
      expect(response.status).toBe(422);
      expect(response.body.error.message).toMatch(new RegExp(`^${field}\\b`));
    }
  });

  it('deletes a key, answering { id, object, deleted }, and the key no longer authenticates', async () => {
    const key = await create();
    expect((await stack.api.get(`/v1/api-keys/${key.id}`, { key: key.key })).status).toBe(200);
    const response = await stack.api.delete(`/v1/api-keys/${key.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: key.id, object: 'api_key', deleted: true });
    // The gateway that served the delete must not answer from its cache, not even once.
    const next = await stack.api.get(`/v1/api-keys/${key.id}`, { key: key.key });
    expect(next.status).toBe(401);
    expect(next.body.error.code).toBe('unauthorized');
    expect((await stack.api.get(`/v1/api-keys/${key.id}`)).status).toBe(404);
    expect((await stack.api.delete(`/v1/api-keys/${key.id}`)).status).toBe(404);
    expect((await stack.api.patch(`/v1/api-keys/${key.id}`, { name: 'back' })).status).toBe(404);
  });

  it('deletes a key once when several requests race to delete it: one 200, the rest 404', async () => {
    const key = await create();
    const answers = await Promise.all(Array.from({ length: 6 }, () => stack.api.delete(`/v1/api-keys/${key.id}`)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 404, 404, 404, 404, 404]);
  });

  it('never brings a deleted key back when a PATCH races its DELETE', async () => {
    const keys = await Promise.all(Array.from({ length: 20 }, () => create()));
    const outcomes = await Promise.all(
      keys.map(async (key) => {
        const [deleted] = await Promise.all([stack.api.delete(`/v1/api-keys/${key.id}`), stack.api.patch(`/v1/api-keys/${key.id}`, { name: 'renamed' })]);
        return { deleted: deleted.status, authenticates: (await stack.api.get('/v1/api-keys', { key: key.key })).status, read: (await stack.api.get(`/v1/api-keys/${key.id}`)).status };
      }),
    );
    // Whichever came first, a key whose delete answered 200 stays deleted.
    for (const outcome of outcomes) expect(outcome).toEqual({ deleted: 200, authenticates: 401, read: 404 });
  });

  it('keeps both of two PATCHes racing on different fields', async () => {
    const keys = await Promise.all(Array.from({ length: 20 }, () => create()));
    const results = await Promise.all(
      keys.map(async (key) => {
        const answers = await Promise.all([
          stack.api.patch(`/v1/api-keys/${key.id}`, { ipRestrictions: ['10.0.0.0/8'] }),
          stack.api.patch(`/v1/api-keys/${key.id}`, { name: 'renamed' }),
        ]);
        const { name, ipRestrictions } = (await stack.api.get(`/v1/api-keys/${key.id}`)).body;
        return { statuses: answers.map((answer) => answer.status), name, ipRestrictions };
      }),
    );
    for (const result of results) expect(result).toEqual({ statuses: [200, 200], name: 'renamed', ipRestrictions: ['10.0.0.0/8'] });
  });

  it.each([
    ['GET', 'a well-formed id nobody has', 'key_01ARZ3NDEKTSV4RRFFQ69G5FAV'],
    ['PATCH', 'a well-formed id nobody has', 'key_01ARZ3NDEKTSV4RRFFQ69G5FAV'],
    ['DELETE', 'a well-formed id nobody has', 'key_01ARZ3NDEKTSV4RRFFQ69G5FAV'],
    ['GET', 'a malformed id', 'not-an-id'],
    ['GET', 'an id with a NUL byte', '%00'],
    ['DELETE', 'a 300-character id', 'x'.repeat(300)],
  ])('answers 404 not_found for %s of %s', async (method, _label, id) => {
    const response = await stack.api.request(method, `/v1/api-keys/${id}`, method === 'PATCH' ? { body: { name: 'x' } } : {});
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('not_found');
  });

  describe('changes reach every gateway replica well before its key cache would let go', () => {
    /** A key both replicas have verified, and so cached. */
    async function cachedOnBoth() {
      const key = await create();
      for (const api of [stack.api, replica.api]) expect((await api.get(`/v1/api-keys/${key.id}`, { key: key.key })).status).toBe(200);
      return key;
    }

    it('a delete through one replica makes the key 401 on the other', async () => {
      const key = await cachedOnBoth();
      expect((await stack.api.delete(`/v1/api-keys/${key.id}`)).status).toBe(200);
      await eventually(async () => (await replica.api.get(`/v1/api-keys/${key.id}`, { key: key.key })).status === 401, EVICTION_BOUND_MS, 20);
    });

    it('a permission change through one replica is enforced by the other', async () => {
      const key = await cachedOnBoth();
      expect((await replica.api.patch(`/v1/api-keys/${key.id}`, { permissions: ['emails:send'] })).status).toBe(200);
      const denied = await eventually(async () => {
        const response = await stack.api.get(`/v1/api-keys/${key.id}`, { key: key.key });
        return response.status === 403 ? response : undefined;
      }, EVICTION_BOUND_MS, 20);
      expect(denied.body.error.message).toContain('api-keys:*');
    });

    it('a new IP restriction through one replica is enforced by the other', async () => {
      const key = await cachedOnBoth();
      expect((await stack.api.patch(`/v1/api-keys/${key.id}`, { ipRestrictions: ['10.0.0.0/8'] })).status).toBe(200);
      await eventually(async () => (await replica.api.get(`/v1/api-keys/${key.id}`, { key: key.key })).status === 403, EVICTION_BOUND_MS, 20);
    });

    it('a new domain restriction through one replica is what the other forwards to the services', async () => {
      const key = await cachedOnBoth();
      const unrestricted = await create();
      expect((await replica.api.patch(`/v1/api-keys/${unrestricted.id}`, { name: 'reached' }, { key: key.key })).status).toBe(200);
      expect((await stack.api.patch(`/v1/api-keys/${key.id}`, { domainRestrictions: ['a.example.com'] })).status).toBe(200);
      // The keys service judges the caller the gateway forwards: restricted now, it may not touch an unrestricted key.
      const refused = await eventually(async () => {
        const response = await replica.api.patch(`/v1/api-keys/${unrestricted.id}`, { name: 'reached again' }, { key: key.key });
        return response.status === 403 ? response : undefined;
      }, EVICTION_BOUND_MS, 20);
      expect(refused.body.error.message).toContain('a.example.com');
    });
  });

  describe('changes reach a gateway replica in its own OS process well before its key cache would let go', () => {
    /** Shares nothing in memory with this process: only NATS can tell it of a change. */
    let other: GatewayProcess;

    beforeAll(async () => {
      other = await startGatewayProcess(stack, { AUTH_FAILURE_LIMIT: '0', KEY_CACHE_TTL_MS: String(KEY_CACHE_TTL_MS) });
    }, PROCESS_READY_TIMEOUT_MS + 30_000);
    afterAll(() => other?.stop());

    it('a permission cut, then a delete, through this process are enforced by the other', async () => {
      const key = await create({ permissions: ['api-keys:*', 'domains:*'] });
      expect((await other.api.get(`/v1/api-keys/${key.id}`, { key: key.key })).status).toBe(200);
      expect((await stack.api.patch(`/v1/api-keys/${key.id}`, { permissions: ['domains:*'] })).status).toBe(200);
      await eventually(async () => (await other.api.get(`/v1/api-keys/${key.id}`, { key: key.key })).status === 403, EVICTION_BOUND_MS, 20);
      expect((await stack.api.delete(`/v1/api-keys/${key.id}`)).status).toBe(200);
      await eventually(async () => (await other.api.get(`/v1/api-keys/${key.id}`, { key: key.key })).status === 401, EVICTION_BOUND_MS, 20);
    });
  });

  describe('a key changes or deletes only keys it could have created', () => {
    it('refuses a key with api-keys:* alone the power to disable or restrict a * key, and lets it manage its own kind', async () => {
      const limited = await create();
      const full = await create({ permissions: ['*'] });
      for (const response of [
        await stack.api.delete(`/v1/api-keys/${full.id}`, { key: limited.key }),
        await stack.api.patch(`/v1/api-keys/${full.id}`, { ipRestrictions: ['10.0.0.0/8'] }, { key: limited.key }),
        await stack.api.patch(`/v1/api-keys/${full.id}`, { name: 'taken over' }, { key: limited.key }),
      ]) {
        expect(response.status).toBe(403);
        expect(response.body.error).toEqual({ code: 'forbidden', message: expect.stringContaining(`cannot change or delete ${full.id}, which holds more than it does`) });
      }
      expect((await stack.api.get(`/v1/api-keys/${full.id}`, { key: full.key })).body).toMatchObject({ name: 'managed', ipRestrictions: [] });

      const child = (await stack.api.post('/v1/api-keys', { name: 'child' }, { key: limited.key })).body;
      expect((await stack.api.patch(`/v1/api-keys/${child.id}`, { name: 'renamed child' }, { key: limited.key })).status).toBe(200);
      expect((await stack.api.delete(`/v1/api-keys/${child.id}`, { key: limited.key })).status).toBe(200);
    });

    it('keeps a domain-restricted key off keys of other domains, and off unrestricted ones', async () => {
      const scoped = await create({ domainRestrictions: ['a.example'] });
      const other = await create({ domainRestrictions: ['b.example'] });
      const unrestricted = await create();
      expect((await stack.api.patch(`/v1/api-keys/${other.id}`, { domainRestrictions: ['a.example'] }, { key: scoped.key })).status).toBe(403);
      expect((await stack.api.delete(`/v1/api-keys/${unrestricted.id}`, { key: scoped.key })).status).toBe(403);
      const sibling = await create({ domainRestrictions: ['a.example'] });
      expect((await stack.api.delete(`/v1/api-keys/${sibling.id}`, { key: scoped.key })).status).toBe(200);
    });
  });

  describe('lastUsedAt', () => {
    it('is set after the key is used, reported in batches', async () => {
      const key = await create();
      expect(key.lastUsedAt).toBeNull();
      const before = Date.now();
      for (let index = 0; index < 5; index += 1) await stack.api.get('/v1/api-keys', { key: key.key });
      const used = await eventually(async () => ((await stack.api.get(`/v1/api-keys/${key.id}`)).body.lastUsedAt as string | null) ?? undefined, 5000);
      expect(Date.parse(used)).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(used)).toBeLessThanOrEqual(Date.now());
    });

    it('is when the key was last used, not when the batch carrying the use was reported', async () => {
      // Its first report goes out 3 s after it started: well after the one request below.
      const batching = await startExtraGateway(stack, { LAST_USED_FLUSH_MS: 3000 });
      try {
        const key = await create();
        expect((await batching.api.get('/v1/api-keys', { key: key.key })).status).toBe(200);
        const answeredAt = Date.now();
        const used = await eventually(async () => ((await stack.api.get(`/v1/api-keys/${key.id}`)).body.lastUsedAt as string | null) ?? undefined, 10000);
        expect(Date.parse(used)).toBeLessThanOrEqual(answeredAt);
      } finally {
        await batching.close();
      }
    });

    it('costs no write per request: a gateway that has not flushed yet has written nothing, and flushes on shutdown', async () => {
      const slow = await startExtraGateway(stack, { LAST_USED_FLUSH_MS: 600_000 });
      const key = await create();
      try {
        for (let index = 0; index < 5; index += 1) expect((await slow.api.get('/v1/api-keys', { key: key.key })).status).toBe(200);
        expect((await stack.api.get(`/v1/api-keys/${key.id}`)).body.lastUsedAt).toBeNull();
      } finally {
        await slow.close();
      }
      await eventually(async () => (await stack.api.get(`/v1/api-keys/${key.id}`)).body.lastUsedAt !== null, 5000);
    });
  });
});
