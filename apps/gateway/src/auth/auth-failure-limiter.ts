import { ipClient } from '@mailroom/runtime';

/**
 * Failed authentications (401) per client, in windows that open with a
 * client's first failure and last `windowMs`. A client with `limit` failures
 * in its window is blocked until the window ends. Bounded, like
 * UnknownKeyMemo, because every new address is a new entry: windows all last
 * as long, so the Map's insertion order is also the order they end in, and
 * ended ones are dropped from its front; past the bound the oldest go.
 */
export class AuthFailureLimiter {
  /** client → its current window, oldest first. */
  private readonly windows = new Map<string, { endsAt: number; failures: number }>();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly maxClients: number,
  ) {}

  /** How long the address stays blocked, in ms; 0 when it is not. */
  retryAfterMs(address: string, now = Date.now()): number {
    if (this.limit <= 0 || this.windows.size === 0) return 0;
    const window = this.windows.get(ipClient(address));
    if (!window || window.failures < this.limit) return 0;
    return Math.max(0, window.endsAt - now);
  }

  recordFailure(address: string, now = Date.now()): void {
    if (this.limit <= 0 || this.maxClients <= 0) return;
    const client = ipClient(address);
    let window = this.windows.get(client);
    if (!window || window.endsAt <= now) {
      this.windows.delete(client);
      this.forgetEnded(now);
      while (this.windows.size >= this.maxClients) this.windows.delete(this.windows.keys().next().value as string);
      window = { endsAt: now + this.windowMs, failures: 0 };
      this.windows.set(client, window);
    }
    window.failures += 1;
  }

  get size(): number {
    return this.windows.size;
  }

  private forgetEnded(now: number): void {
    for (const [client, window] of this.windows) {
      if (window.endsAt > now) return;
      this.windows.delete(client);
    }
  }
}
