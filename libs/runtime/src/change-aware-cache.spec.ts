import { ChangeAwareCache } from './change-aware-cache';

interface Key {
  keyId: string;
  name: string;
}

describe(ChangeAwareCache.name, () => {
  const loader = (value: Key | null) => jest.fn(async () => value);

  it('answers a second read from memory and loads again after the record is evicted', async () => {
    const cache = new ChangeAwareCache<Key>(60_000, (key) => key.keyId);
    const load = loader({ keyId: 'k1', name: 'a' });
    await cache.get('hash-1', load);
    await cache.get('hash-1', load);
    expect(load).toHaveBeenCalledTimes(1);
    cache.evict('k1');
    await cache.get('hash-1', load);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('peeks at a fresh answer without loading, and at nothing before a load, after an eviction or past the TTL', async () => {
    jest.useFakeTimers({ now: Date.now() });
    try {
      const cache = new ChangeAwareCache<Key>(1_000, (key) => key.keyId);
      expect(cache.peek('hash-1')).toBeUndefined();
      await cache.get('hash-1', loader({ keyId: 'k1', name: 'a' }));
      expect(cache.peek('hash-1')).toEqual({ keyId: 'k1', name: 'a' });
      jest.advanceTimersByTime(1_001);
      expect(cache.peek('hash-1')).toBeUndefined();
      await cache.get('hash-1', loader({ keyId: 'k1', name: 'b' }));
      cache.evict('k1');
      expect(cache.peek('hash-1')).toBeUndefined();
    } finally {
      jest.useRealTimers();
    }
  });

  it('evicts every entry that answers about the record, and only those', async () => {
    const cache = new ChangeAwareCache<Key>(60_000, (key) => key.keyId);
    const k1 = loader({ keyId: 'k1', name: 'a' });
    const k2 = loader({ keyId: 'k2', name: 'b' });
    await Promise.all([cache.get('live:k1', k1), cache.get('test:k1', k1), cache.get('live:k2', k2)]);
    cache.evict('k1');
    await Promise.all([cache.get('live:k1', k1), cache.get('test:k1', k1), cache.get('live:k2', k2)]);
    expect(k1).toHaveBeenCalledTimes(4);
    expect(k2).toHaveBeenCalledTimes(1);
  });

  it('hands out but does not keep an answer loaded while a change arrived', async () => {
    const cache = new ChangeAwareCache<Key>(60_000, (key) => key.keyId);
    let release!: () => void;
    const stale = jest.fn(() => new Promise<Key>((resolve) => (release = () => resolve({ keyId: 'k1', name: 'old' }))));
    const inFlight = cache.get('hash-1', stale);
    cache.evict('k1');
    release();
    expect((await inFlight)?.name).toBe('old');
    const fresh = loader({ keyId: 'k1', name: 'new' });
    expect((await cache.get('hash-1', fresh))?.name).toBe('new');
    expect(fresh).toHaveBeenCalledTimes(1);
  });

  it('keeps nothing for a missing record, after the TTL, with a TTL of 0, or after clear()', async () => {
    const missing = loader(null);
    const cache = new ChangeAwareCache<Key>(60_000, (key) => key.keyId);
    await cache.get('nobody', missing);
    await cache.get('nobody', missing);
    expect(missing).toHaveBeenCalledTimes(2);

    const uncached = new ChangeAwareCache<Key>(0, (key) => key.keyId);
    const load = loader({ keyId: 'k1', name: 'a' });
    await uncached.get('hash-1', load);
    await uncached.get('hash-1', load);
    expect(load).toHaveBeenCalledTimes(2);

    const cleared = new ChangeAwareCache<Key>(60_000, (key) => key.keyId);
    const again = loader({ keyId: 'k1', name: 'a' });
    await cleared.get('hash-1', again);
    cleared.clear();
    await cleared.get('hash-1', again);
    expect(again).toHaveBeenCalledTimes(2);

    jest.useFakeTimers({ now: Date.now() });
    try {
      const expiring = new ChangeAwareCache<Key>(1_000, (key) => key.keyId);
      const timed = loader({ keyId: 'k1', name: 'a' });
      await expiring.get('hash-1', timed);
      jest.setSystemTime(Date.now() + 1_001);
      await expiring.get('hash-1', timed);
      expect(timed).toHaveBeenCalledTimes(2);
    } finally {
      jest.useRealTimers();
    }
  });
});
