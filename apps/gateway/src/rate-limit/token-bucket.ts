/**
 * A token bucket per API key: `ratePerSecond` tokens flow in continuously up
 * to `burst`. Tokens can go negative when other replicas report consumption,
 * which is how the limit holds across the cluster.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; updatedAt: number }>();

  constructor(
    readonly ratePerSecond: number,
    readonly burst: number,
    /**
     * Milliseconds on a clock that never goes back: the wall clock set back an hour (NTP stepping it, a
     * VM resumed) would otherwise drain an hour of tokens from every bucket and refuse each key for that hour.
     */
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Takes one token if there is one. */
  take(key: string): { allowed: boolean; remaining: number; resetSeconds: number; retryAfterSeconds: number } {
    const bucket = this.refill(key);
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    const deficit = Math.max(0, 1 - bucket.tokens);
    return {
      allowed,
      remaining: Math.max(0, Math.floor(bucket.tokens)),
      resetSeconds: Math.ceil((this.burst - bucket.tokens) / this.ratePerSecond),
      retryAfterSeconds: Math.max(1, Math.ceil(deficit / this.ratePerSecond)),
    };
  }

  /** Tokens another replica spent for this key. */
  consumeElsewhere(key: string, count: number): void {
    const bucket = this.refill(key);
    bucket.tokens = Math.max(-this.burst, bucket.tokens - count);
  }

  /** Forget buckets that have refilled completely; they carry no state. */
  prune(): void {
    for (const [key] of this.buckets) if (this.refill(key).tokens >= this.burst) this.buckets.delete(key);
  }

  private refill(key: string) {
    const now = this.now();
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = { tokens: this.burst, updatedAt: now };
      this.buckets.set(key, bucket);
    }
    // A clock that went back (one passed in) gives no tokens, and takes none either.
    const elapsedMs = Math.max(0, now - bucket.updatedAt);
    bucket.tokens = Math.min(this.burst, bucket.tokens + (elapsedMs / 1000) * this.ratePerSecond);
    bucket.updatedAt = now;
    return bucket;
  }
}
