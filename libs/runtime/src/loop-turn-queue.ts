/**
 * Sends queued during one event-loop turn, run together after its I/O phase
 * (setImmediate). nats.js writes to the socket once per microtask checkpoint,
 * and each request or reply is ready in a callback of its own, so sending at
 * once costs a write syscall each (write syscalls were 13 % of the emails
 * service's CPU under a send load); sends run together share one write, for
 * no more delay than the turn itself.
 */
export class LoopTurnQueue {
  private queued: Array<() => void> = [];

  push(send: () => void): void {
    if (this.queued.push(send) > 1) return;
    setImmediate(() => {
      const sends = this.queued;
      this.queued = [];
      for (const run of sends) run();
    });
  }

  /** Drops what is queued and not yet run. */
  clear(): void {
    this.queued = [];
  }
}
