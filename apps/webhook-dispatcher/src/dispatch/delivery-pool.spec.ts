import { DeliveryPool, PREFETCH_FACTOR } from './delivery-pool';
import { claimedDelivery } from '../../test/support/claimed-delivery';

const delivery = claimedDelivery;

describe(DeliveryPool.name, () => {
  const makePool = (concurrency = 4, perEndpoint = 2, bufferBytes = 1_000_000) => new DeliveryPool({ concurrency, perEndpoint, bufferBytes });

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
    const items = [delivery('wh_a'), delivery('wh_a'), delivery('wh_a')];
    items.forEach((item) => pool.add(item));
    pool.takeSendable();
    pool.markSent(items[0].id);
    expect(pool.claimLimits()).toEqual({
      limit: 4 * PREFETCH_FACTOR - 2,
      perEndpoint: 2 * PREFETCH_FACTOR,
      held: { wh_a: 2 },
      slow: { ids: [], room: 2 },
      bytes: { room: 1_000_000 - 300, atLeastOne: false },
    });
    expect(pool.runningLow('wh_a')).toBe(true);
  });

  it('stops claiming while concurrency results wait to be written', () => {
    const pool = makePool(2, 2);
    const items = [delivery('wh_a'), delivery('wh_a')];
    items.forEach((item) => pool.add(item));
    pool.takeSendable();
    items.forEach((item) => pool.markSent(item.id));
    expect(pool.claimLimits().limit).toBe(0);
    pool.remove(items[0].id);
    expect(pool.claimLimits().limit).toBe(2 * PREFETCH_FACTOR);
  });

  it('gives back only the queued deliveries on shutdown, and keeps leasing the rest', () => {
    const pool = makePool(1, 1);
    const items = [delivery('wh_a'), delivery('wh_a')];
    items.forEach((item) => pool.add(item));
    pool.takeSendable();
    expect(pool.drainQueued()).toEqual([items[1].id]);
    expect(pool.ids()).toEqual([items[0].id]);
  });

  describe('payload bytes', () => {
    it('claims only as many payload bytes as the buffer has room for, counting deliveries queued, sending and recording', () => {
      const pool = makePool(4, 2, 1000);
      const items = [delivery('wh_a', 300), delivery('wh_a', 250), delivery('wh_b', 200)];
      items.forEach((item) => pool.add(item));
      pool.takeSendable();
      pool.markSent(items[0].id);
      expect(pool.claimLimits()).toMatchObject({ limit: 4 * PREFETCH_FACTOR - 2, bytes: { room: 1000 - 750, atLeastOne: false } });
      pool.remove(items[0].id);
      expect(pool.claimLimits().bytes).toEqual({ room: 1000 - 450, atLeastOne: false });
    });

    it('claims nothing while the buffer is full, and one delivery however large once it holds none, so nothing is stuck', () => {
      const pool = makePool(4, 2, 1000);
      expect(pool.claimLimits()).toMatchObject({ limit: 4 * PREFETCH_FACTOR, bytes: { room: 1000, atLeastOne: true } });
      const large = delivery('wh_a', 5000);
      pool.add(large);
      expect(pool.claimLimits()).toMatchObject({ limit: 0, bytes: { room: 0, atLeastOne: false } });
      pool.takeSendable();
      pool.markSent(large.id);
      pool.remove(large.id);
      expect(pool.claimLimits()).toMatchObject({ limit: 4 * PREFETCH_FACTOR, bytes: { room: 1000, atLeastOne: true } });
    });

    it('frees the bytes of deliveries handed back, and remembers the most it held at once', () => {
      const pool = makePool(1, 1, 1000);
      const items = [delivery('wh_a', 400), delivery('wh_a', 500)];
      items.forEach((item) => pool.add(item));
      expect(pool.peakBytes).toBe(900);
      pool.takeSendable();
      expect(pool.drainQueued()).toEqual([items[1].id]);
      expect(pool.claimLimits().bytes).toEqual({ room: 600, atLeastOne: false });
      pool.remove(items[0].id);
      pool.add(delivery('wh_a', 700));
      expect(pool.peakBytes).toBe(900);
    });

    it('keeps the delivery it holds when a claim hands it the same one again (its lease lapsed meanwhile): sent once, counted once', () => {
      const pool = makePool(4, 2, 1000);
      const held = delivery('wh_a', 600);
      pool.add(held);
      expect(pool.takeSendable()).toEqual([held]);
      // The claim reads the row afresh: another object for the same delivery.
      pool.add(Object.assign({}, held));
      expect(pool.claimLimits().bytes).toEqual({ room: 400, atLeastOne: false });
      expect(pool.takeSendable()).toEqual([]);
      pool.markSent(held.id);
      pool.remove(held.id);
      expect(pool.ids()).toEqual([]);
      expect(pool.claimLimits().bytes).toEqual({ room: 1000, atLeastOne: true });
    });
  });

  describe('slow endpoints', () => {
    /** Two endpoints that took every slot of a pool of 4 (2 per endpoint), each with one delivery still queued, and then stalled. */
    const stalledPool = () => {
      const pool = makePool(4, 2);
      const stalled = ['wh_x', 'wh_x', 'wh_x', 'wh_y', 'wh_y', 'wh_y'].map(delivery);
      stalled.forEach((item) => pool.add(item));
      expect(pool.takeSendable()).toHaveLength(4);
      const handedBack = [...pool.turnSlow('wh_x'), ...pool.turnSlow('wh_y')];
      return { pool, stalled, handedBack };
    };

    it('hands back the queued deliveries of an endpoint that turned slow, and keeps leasing its open ones', () => {
      const { pool, stalled, handedBack } = stalledPool();
      expect(handedBack).toEqual([stalled[2].id, stalled[5].id]);
      expect(pool.ids()).toEqual([stalled[0], stalled[1], stalled[3], stalled[4]].map((item) => item.id));
    });

    it('takes out a slow endpoint\'s delivery that arrived behind its open requests, and keeps one that only waits for a free slot', () => {
      const { pool } = stalledPool();
      const behindOpen = delivery('wh_x');
      pool.add(behindOpen);
      pool.turnSlow('wh_quiet');
      const others = ['wh_a', 'wh_a', 'wh_b', 'wh_b'].map(delivery);
      others.forEach((item) => pool.add(item));
      expect(pool.takeSendable()).toHaveLength(2);
      const waitsForSlot = delivery('wh_quiet');
      pool.add(waitsForSlot);
      expect(pool.takeSendable()).toEqual([]);
      expect(pool.takeQueuedBehindSlow()).toEqual([behindOpen.id]);
      expect(pool.ids()).toContain(waitsForSlot.id);
    });

    it('counts the open requests of slow endpoints only up to their half of the slots, so the others get the rest', () => {
      const { pool } = stalledPool();
      const healthy = ['wh_ok', 'wh_ok', 'wh_ok'].map(delivery);
      healthy.forEach((item) => pool.add(item));
      expect(pool.takeSendable().map((item) => item.id)).toEqual([healthy[0].id, healthy[1].id]);
      expect(pool.claimLimits()).toMatchObject({ limit: 4 * PREFETCH_FACTOR - 3 - 2, slow: { ids: ['wh_x', 'wh_y'], room: 0 } });
    });

    it('never has more than maxOpen requests open when endpoints stall one after another', () => {
      const { pool } = stalledPool();
      const next = ['wh_z', 'wh_z', 'wh_z'].map(delivery);
      next.forEach((item) => pool.add(item));
      expect(pool.takeSendable()).toHaveLength(2);
      expect(pool.turnSlow('wh_z')).toEqual([next[2].id]);
      pool.add(delivery('wh_ok'));
      expect(pool.maxOpen).toBe(6);
      expect(pool.takeSendable()).toEqual([]);
    });

    it('sends a slow endpoint one request at a time, and all slow ones within half the slots', () => {
      const pool = makePool(4, 2);
      ['wh_x', 'wh_y', 'wh_z'].forEach((webhookId) => pool.turnSlow(webhookId));
      const queued = ['wh_x', 'wh_x', 'wh_y', 'wh_z', 'wh_ok'].map(delivery);
      queued.forEach((item) => pool.add(item));
      expect(pool.claimLimits().slow).toEqual({ ids: ['wh_x', 'wh_y', 'wh_z'], room: 0 });
      expect(pool.takeSendable().map((item) => item.webhookId)).toEqual(['wh_x', 'wh_y', 'wh_ok']);
      pool.markSent(queued[0].id);
      expect(pool.takeSendable().map((item) => item.webhookId)).toEqual(['wh_x']);
    });

    it('gives an endpoint its full limit again once it answers quickly', () => {
      const pool = makePool(4, 2);
      pool.turnSlow('wh_x');
      pool.turnFast('wh_x');
      ['wh_x', 'wh_x'].map(delivery).forEach((item) => pool.add(item));
      expect(pool.takeSendable()).toHaveLength(2);
      expect(pool.claimLimits().slow).toEqual({ ids: [], room: 2 });
    });

    it('keeps one slot for slow endpoints when the concurrency is 1', () => {
      const pool = makePool(1, 1);
      pool.turnSlow('wh_x');
      pool.add(delivery('wh_x'));
      expect(pool.slowShare).toBe(1);
      expect(pool.takeSendable()).toHaveLength(1);
    });
  });
});
