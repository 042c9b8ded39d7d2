import { ipClient } from '@mailroom/runtime';

interface FailureWindow {
  endsAt: number;
  failures: number;
}

/**
 * Failed authentications (401) per client, in windows that open with a
 * client's first failure and last `windowMs`. A client with `limit` failures
 * in its window is blocked until the window ends.
 *
 * Bounded, like UnknownKeyMemo, because every new address is a new entry:
 * ended windows are dropped, and past maxClients a new client pushes out
 * the oldest client still under the limit (its count starts again, so it may
 * fail up to limit − 1 more times). A blocked client goes only when every
 * client remembered is blocked, the one blocked first (closest to the end of
 * its window) first: until then a flood of one-off addresses cannot lift a
 * block, and to fill the memory with blocked clients takes `limit` failures
 * from each of maxClients of them, as many as they are allowed anyway. That
 * is where it fails open, since with bounded memory it must somewhere.
 */
export class AuthFailureLimiter {
  /** client → its window, under the limit; oldest first (all windows last as long, so also the order they end in). */
  private readonly counting = new Map<string, FailureWindow>();
  /** client → its window, at the limit; in the order they were blocked. */
  private readonly blocked = new Map<string, FailureWindow>();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly maxClients: number,
  ) {}

  /**
   * How long the address stays blocked, in ms; 0 when it is not. Times are on a clock that never goes back
   * (performance.now): the wall clock set back an hour would hold every block, and every count, an hour longer.
   */
  retryAfterMs(address: string, now = performance.now()): number {
    if (this.limit <= 0 || this.blocked.size === 0) return 0;
    const window = this.blocked.get(ipClient(address));
    return window ? Math.max(0, window.endsAt - now) : 0;
  }

  recordFailure(address: string, now = performance.now()): void {
    if (this.limit <= 0 || this.maxClients <= 0) return;
    const client = ipClient(address);
    let window = this.counting.get(client) ?? this.blocked.get(client);
    if (!window || window.endsAt <= now) {
      this.counting.delete(client);
      this.blocked.delete(client);
      this.makeRoom(now);
      window = { endsAt: now + this.windowMs, failures: 0 };
      this.counting.set(client, window);
    }
    window.failures += 1;
    if (window.failures === this.limit) {
      this.counting.delete(client);
      this.blocked.set(client, window);
    }
  }

  get size(): number {
    return this.counting.size + this.blocked.size;
  }

  /** Room for one more client: ended windows go, then the oldest still counting, then the first blocked. */
  private makeRoom(now: number): void {
    forgetEnded(this.counting, now);
    forgetEnded(this.blocked, now);
    while (this.size >= this.maxClients) {
      const from = this.counting.size ? this.counting : this.blocked;
      from.delete(from.keys().next().value as string);
    }
  }
}

/** Drops ended windows from the front; one ended behind a live one (blocked ones are not in end order) waits its turn. */
function forgetEnded(windows: Map<string, FailureWindow>, now: number): void {
  for (const [client, window] of windows) {
    if (window.endsAt > now) return;
    windows.delete(client);
  }
}
