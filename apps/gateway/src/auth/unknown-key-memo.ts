import { REVOKED_KEY } from '@mailroom/auth';

/** What the keys service said of a hash it has no valid key for: null, never issued; REVOKED_KEY, deleted. */
export type KeyMiss = typeof REVOKED_KEY | null;

/**
 * Key hashes the keys service said it does not know (or knows as deleted), remembered for a while so
 * a client retrying with a deleted or mistyped key costs no NATS round trip
 * and no query per request. Safe to remember: a deleted key never comes back,
 * and a new key's hash cannot have been asked about before its secret existed.
 * Bounded, because every well-formed random key is a new entry: past the
 * bound the oldest go first.
 */
export class UnknownKeyMemo {
  /** keyHash → what was said of it and when the memory of it ends (epoch ms), oldest first (Map keeps insertion order). */
  private readonly expiresAtByHash = new Map<string, { miss: KeyMiss; expiresAt: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  /** What was said of the hash, or undefined when it is not remembered. */
  recall(keyHash: string, now = Date.now()): KeyMiss | undefined {
    const entry = this.expiresAtByHash.get(keyHash);
    if (entry === undefined) return undefined;
    if (entry.expiresAt > now) return entry.miss;
    this.expiresAtByHash.delete(keyHash);
    return undefined;
  }

  remember(keyHash: string, now = Date.now(), miss: KeyMiss = null): void {
    if (this.ttlMs <= 0 || this.maxEntries <= 0) return;
    this.expiresAtByHash.delete(keyHash);
    while (this.expiresAtByHash.size >= this.maxEntries) {
      const oldest = this.expiresAtByHash.keys().next().value as string;
      this.expiresAtByHash.delete(oldest);
    }
    this.expiresAtByHash.set(keyHash, { miss, expiresAt: now + this.ttlMs });
  }

  get size(): number {
    return this.expiresAtByHash.size;
  }
}
