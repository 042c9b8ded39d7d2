import { REVOKED_KEY } from '@mailroom/auth';
import { UnknownKeyMemo } from './unknown-key-memo';

describe(UnknownKeyMemo.name, () => {
  it('remembers a hash until its time runs out', () => {
    const memo = new UnknownKeyMemo(1_000, 10);
    memo.remember('h1', 5_000);
    expect(memo.recall('h1', 5_999) !== undefined).toBe(true);
    expect(memo.recall('h1', 6_000) !== undefined).toBe(false);
    expect(memo.size).toBe(0);
  });

  it('recalls what was said of a hash: never issued (null) or deleted (revoked)', () => {
    const memo = new UnknownKeyMemo(1_000, 10);
    memo.remember('h1', 0);
    memo.remember('h2', 0, REVOKED_KEY);
    expect([memo.recall('h1', 1), memo.recall('h2', 1), memo.recall('h3', 1)]).toEqual([null, REVOKED_KEY, undefined]);
  });

  it('forgets the oldest hashes first past its bound', () => {
    const memo = new UnknownKeyMemo(60_000, 3);
    for (const hash of ['h1', 'h2', 'h3', 'h4']) memo.remember(hash, 0);
    expect(['h1', 'h2', 'h3', 'h4'].map((hash) => memo.recall(hash, 1) !== undefined)).toEqual([false, true, true, true]);
    expect(memo.size).toBe(3);
  });

  it('remembers nothing when the TTL is 0 (caching switched off)', () => {
    const memo = new UnknownKeyMemo(0, 10);
    memo.remember('h1', 0);
    expect(memo.recall('h1', 0) !== undefined).toBe(false);
  });
});
