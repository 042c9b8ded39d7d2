import { DeliveryPool, PREFETCH_FACTOR } from './delivery-pool';
import type { ClaimedDelivery } from './dispatch.repository';

let next = 0;
const delivery = (webhookId: string): ClaimedDelivery => ({
  id: `whd_${(next += 1)}`,
  webhookId,
  eventId: `evt_${next}`,
  payload: { id: `evt_${next}`, type: 'email.delivered', createdAt: '2026-01-01T00:00:00.000Z', mode: 'live', data: {} },
  attempts: 0,
  attemptLimit: 8,
  url: 'https://example.com/hooks',
  webhookStatus: 'active',
  secretSealed: 'sealed',
  previousSecretSealed: null,
  previousSecretExpiresAt: null,
});

describe(DeliveryPool.name, () => {
  const makePool = (concurrency = 4, perEndpoint = 2) => new DeliveryPool({ concurrency, perEndpoint });

  it('sends at most perEndpoint to one webhook at once, oldest claim first; the rest wait', () => {
    const pool = makePool();
    const claimed = [delivery('wh_a'), delivery('wh_a'), delivery('wh_a')];
    claimed.forEach((item) => pool.add(item));
    expect(pool.takeSendable().map((item) => item.id)).toEqual([claimed[0].id, claimed[1].id]);
    expect(pool.takeSendable()).toEqual([]);
    pool.markSent(claimed[0].id);
    expect(pool.takeSendable().map((item) => item.id)).toEqual([claimed[2].id]);
  });

  it('keeps a slow endpoint from taking the slots of another', () => {
    const pool = makePool(4, 2);
    const slow = [delivery('wh_slow'), delivery('wh_slow'), delivery('wh_slow'), delivery('wh_slow')];
    const fast = delivery('wh_fast');
    [...slow, fast].forEach((item) => pool.add(item));
    expect(pool.takeSendable().map((item) => item.webhookId)).toEqual(['wh_slow', 'wh_slow', 'wh_fast']);
  });

  it('never has more than concurrency requests open across endpoints', () => {
    const pool = makePool(3, 2);
    ['wh_a', 'wh_a', 'wh_b', 'wh_b', 'wh_c'].forEach((webhookId) => pool.add(delivery(webhookId)));
    expect(pool.takeSendable()).toHaveLength(3);
    expect(pool.takeSendable()).toHaveLength(0);
  });

  it('claims up to a prefetch per endpoint, counting queued and sending but not recording', () => {
    const pool = makePool(4, 2);
    expect(pool.claimPerEndpoint).toBe(2 * PREFETCH_FACTOR);
    const items = [delivery('wh_a'), delivery('wh_a'), delivery('wh_a')];
    items.forEach((item) => pool.add(item));
    pool.takeSendable();
    pool.markSent(items[0].id);
    expect(pool.heldByEndpoint()).toEqual({ wh_a: 2 });
    expect(pool.claimCapacity()).toBe(4 * PREFETCH_FACTOR - 2);
    expect(pool.runningLow('wh_a')).toBe(true);
  });

  it('stops claiming while concurrency results wait to be written', () => {
    const pool = makePool(2, 2);
    const items = [delivery('wh_a'), delivery('wh_a')];
    items.forEach((item) => pool.add(item));
    pool.takeSendable();
    items.forEach((item) => pool.markSent(item.id));
    expect(pool.claimCapacity()).toBe(0);
    pool.remove(items[0].id);
    expect(pool.claimCapacity()).toBe(2 * PREFETCH_FACTOR);
  });

  it('gives back only the queued deliveries on shutdown, and keeps leasing the rest', () => {
    const pool = makePool(1, 1);
    const items = [delivery('wh_a'), delivery('wh_a')];
    items.forEach((item) => pool.add(item));
    pool.takeSendable();
    expect(pool.drainQueued()).toEqual([items[1].id]);
    expect(pool.ids()).toEqual([items[0].id]);
  });
});
