import type { INestApplicationContext } from '@nestjs/common';
import { eventually, startStack, Stack } from '@mailroom/testing';
import { bootstrapKeys } from '../src/bootstrap';

const READ_CACHE_TTL_MS = 60_000;
/** How long a change may take to reach every replica's cache here: a sixth of the TTL. */
const EVICTION_BOUND_MS = READ_CACHE_TTL_MS / 6;

/**
 * The keys service answers GET /v1/api-keys/{id} from memory. A read TTL of a
 * minute here means only the change announcements can make these pass.
 */
describe('GET /v1/api-keys/{id} served from the keys read cache', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ apps: ['keys', 'gateway'], env: { KEY_READ_CACHE_TTL_MS: String(READ_CACHE_TTL_MS), LAST_USED_FLUSH_MS: '100' } });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const create = async () => (await stack.api.post('/v1/api-keys', { name: 'cached', permissions: ['api-keys:*'] })).body;
  const getMany = async (id: string, times: number) => Promise.all(Array.from({ length: times }, () => stack.api.get(`/v1/api-keys/${id}`)));

  it('shows lastUsedAt once the key has been used, although its answer was cached before', async () => {
    const key = await create();
    expect((await stack.api.get(`/v1/api-keys/${key.id}`)).body.lastUsedAt).toBeNull();
    expect((await stack.api.get('/v1/api-keys', { key: key.key })).status).toBe(200);
    const lastUsedAt = await eventually(async () => (await stack.api.get(`/v1/api-keys/${key.id}`)).body.lastUsedAt ?? undefined, 5000);
    expect(Date.parse(lastUsedAt)).toBeGreaterThan(Date.parse(key.createdAt) - 1000);
  });

  describe('with a second keys replica sharing the work', () => {
    let replica: INestApplicationContext;

    beforeAll(async () => {
      replica = await bootstrapKeys(stack.configFor('keys'));
    });
    afterAll(async () => {
      await replica?.close();
    });

    // Both wait EVICTION_BOUND_MS, far below the minute the cached answers would otherwise live: only the change
    // announcement can make them pass. (They waited 1 s, but one round of twenty reads through the gateway can take
    // about that long on a loaded 2-core machine, so a round begun before the announcement landed left no time for another.)
    it('a rename through one replica reaches the other replica’s cache well before its TTL', async () => {
      const key = await create();
      // Twenty reads spread over both replicas through the queue group, so both cache the key.
      expect((await getMany(key.id, 20)).map((response) => response.body.name)).toEqual(Array(20).fill('cached'));
      expect((await stack.api.patch(`/v1/api-keys/${key.id}`, { name: 'renamed' })).status).toBe(200);
      await eventually(async () => (await getMany(key.id, 20)).every((response) => response.body.name === 'renamed'), EVICTION_BOUND_MS, 20);
    });

    it('a delete through one replica makes the key 404 on the other well before its TTL', async () => {
      const key = await create();
      expect((await getMany(key.id, 20)).every((response) => response.status === 200)).toBe(true);
      expect((await stack.api.delete(`/v1/api-keys/${key.id}`)).status).toBe(200);
      await eventually(async () => (await getMany(key.id, 20)).every((response) => response.status === 404), EVICTION_BOUND_MS, 20);
    });
  });
});
