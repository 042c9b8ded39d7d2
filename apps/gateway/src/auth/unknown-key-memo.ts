/**
 * Key hashes the keys service said it does not know, remembered for a while so
 * a client retrying with a deleted or mistyped key costs no NATS round trip
 * and no query per request. Safe to remember: a deleted key never comes back,
 * and a new key's hash cannot have been asked about before its secret existed.
 * Bounded, because every well-formed random key is a new entry: past the
 * bound the oldest go first.
 */
export class UnknownKeyMemo {
  /** keyHash → when the memory of it ends (epoch ms), oldest first (Map keeps insertion order). */
  private readonly expiresAtByHash = new Map<string, number>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  has(keyHash: string, now = Date.now()): boolean {
    const expiresAt = this.expiresAtByHash.get(keyHash);
    if (expiresAt === undefined) return false;
    if (expiresAt > now) return true;
    this.expiresAtByHash.delete(keyHash);
    return false;
  }

  remember(keyHash: string, now = Date.now()): void {
    if (this.ttlMs <= 0 || this.maxEntries <= 0) return;
    this.expiresAtByHash.delete(keyHash);
    while (this.expiresAtByHash.size >= this.maxEntries) {
      const oldest = this.expiresAtByHash.keys().next().value as string;
      this.expiresAtByHash.delete(oldest);
    }
    this.expiresAtByHash.set(keyHash, now + this.ttlMs);
  }

  get size(): number {
    return this.expiresAtByHash.size;
  }
}
