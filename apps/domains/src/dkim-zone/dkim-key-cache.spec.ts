import type { DomainKeyRow, DomainsRepository } from '../domains/domains.repository';
import { DkimKeyCache, DkimLookupsBusyError } from './dkim-key-cache';

const ID = 'dom_01jb00000000000000000000ab';
const KEY: DomainKeyRow = { id: ID, name: 'example.com', dkimSelector: 'mr202611', dkimPublicKey: 'MIIBIjAN' } as DomainKeyRow;
const LABEL = `mr202611-${ID.slice(4).toLowerCase()}`;

/** A repository whose database can be taken away, counting the lookups that reach it. */
function repository() {
  const state = { down: false, lookups: 0, key: KEY as DomainKeyRow | null };
  const repo = {
    findKeys: async () => {
      state.lookups += 1;
      if (state.down) throw new Error('Connection terminated unexpectedly');
      return state.key ? [state.key] : [];
    },
  } as unknown as DomainsRepository;
  return { repo, state };
}

describe(DkimKeyCache.name, () => {
  beforeEach(() => jest.useFakeTimers({ now: new Date('2026-11-27T00:00:00Z') }));
  afterEach(() => jest.useRealTimers());

  it('keeps answering a key it has read while the database is away (serve-stale, RFC 8767), asking the database again at most every few seconds', async () => {
    const { repo, state } = repository();
    const cache = new DkimKeyCache(repo);
    expect(await cache.byLabel(LABEL)).toEqual(KEY);

    state.down = true;
    jest.advanceTimersByTime(10 * 60_000); // long past the entry's freshness
    expect(await cache.byLabel(LABEL)).toEqual(KEY);
    const lookups = state.lookups;
    expect(await cache.byLabel(LABEL)).toEqual(KEY);
    expect(state.lookups).toBe(lookups); // a resolver's retries do not each wait on the dead database

    jest.advanceTimersByTime(6_000);
    await cache.byLabel(LABEL);
    expect(state.lookups).toBe(lookups + 1);

    state.down = false;
    state.key = null; // deleted meanwhile on another replica
    jest.advanceTimersByTime(6_000);
    expect(await cache.byLabel(LABEL)).toBeNull();
  });

  it('fails (SERVFAIL) for a key it never read, and for one read longer ago than a day', async () => {
    const { repo, state } = repository();
    const cache = new DkimKeyCache(repo);
    await cache.byLabel(LABEL);
    state.down = true;
    await expect(cache.byLabel(`mr202611-${'01jb00000000000000000000cd'}`)).rejects.toThrow(/Connection terminated/);
    jest.advanceTimersByTime(25 * 60 * 60_000);
    await expect(cache.byLabel(LABEL)).rejects.toThrow(/Connection terminated/);
  });

  it('reads a bounded number of keys from the database at once: past it a key not in memory fails at once (SERVFAIL), so a flood of made-up labels does not pile up reads', async () => {
    const reads: Array<(rows: DomainKeyRow[]) => void> = [];
    const repo = { findKeys: () => new Promise<DomainKeyRow[]>((resolve) => reads.push(resolve)) } as unknown as DomainsRepository;
    const cache = new DkimKeyCache(repo);
    const made = (index: number) => `mr202611-${String(index).padStart(26, '0')}`;
    const answers = Array.from({ length: 10_000 }, (_, index) => cache.byLabel(made(index)));
    expect(reads.length).toBeLessThanOrEqual(100);
    const beyond = await Promise.allSettled(answers.slice(reads.length));
    expect(beyond.every((answer) => answer.status === 'rejected' && answer.reason instanceof DkimLookupsBusyError)).toBe(true);

    // Once the reads in flight are answered, the next label is read again.
    for (const read of reads.splice(0)) read([]);
    await Promise.all(answers.slice(0, 100));
    const next = cache.byLabel(LABEL);
    expect(reads).toHaveLength(1);
    reads[0]([KEY]);
    expect(await next).toEqual(KEY);
  });

  it('answers a key it has read, stale if need be, while the reads in flight are at their bound', async () => {
    const { repo } = repository();
    const cache = new DkimKeyCache(repo);
    expect(await cache.byLabel(LABEL)).toEqual(KEY);
    jest.advanceTimersByTime(10 * 60_000);
    let hangingReads = 0;
    Object.assign(repo, { findKeys: () => new Promise(() => (hangingReads += 1)) });
    for (let index = 0; index < 200; index += 1) void cache.byLabel(`mr202611-${String(index).padStart(26, '0')}`).catch(() => undefined);
    const reads = hangingReads;
    const answer = cache.byLabel(LABEL);
    expect(hangingReads).toBe(reads);
    expect(await answer).toEqual(KEY);
  });

  it('does not keep a key read while its domain was being deleted: a read that began before forget() is answered, not remembered', async () => {
    let finishRead: (rows: DomainKeyRow[]) => void = () => undefined;
    const repo = { findKeys: () => new Promise<DomainKeyRow[]>((resolve) => (finishRead = resolve)) } as unknown as DomainsRepository;
    const cache = new DkimKeyCache(repo);
    const racing = cache.byLabel(LABEL); // a resolver's query, reading the row before the delete commits
    cache.forget(ID); // the delete committed on this replica
    finishRead([KEY]);
    expect(await racing).toEqual(KEY);

    const next = cache.byLabel(LABEL); // read again: the row is gone
    finishRead([]);
    expect(await next).toBeNull();
  });

  it("answers each of a domain's published keys under its own selector, from one read, and no other selector", async () => {
    const { repo, state } = repository();
    const pending = { ...KEY, dkimSelector: 'r202611a', dkimPublicKey: 'MIIBIjAO' };
    Object.assign(repo, { findKeys: async () => ((state.lookups += 1), [KEY, pending]) });
    const cache = new DkimKeyCache(repo);
    expect(await cache.byLabel(LABEL)).toEqual(KEY);
    expect(await cache.byLabel(`r202611a-${ID.slice(4).toLowerCase()}`)).toEqual(pending);
    expect(await cache.byLabel(`mr202610-${ID.slice(4).toLowerCase()}`)).toBeNull();
    expect(state.lookups).toBe(1);
  });
});
