import { setMaxListeners } from 'node:events';
import SMTPPool from 'nodemailer/lib/smtp-pool';
import type { ExchangeLimits } from './smtp-send';

/** A pool unused this long is closed, so one-off MX hosts do not keep sockets and memory. */
export const IDLE_CLOSE_MS = 5 * 60_000;

/**
 * Pools kept at once. There is one per MX address (and per TLS mode), and recipient domains are the senders' to
 * choose, down to one whose MX records list hundreds of addresses that all refuse at once: without a bound, a
 * burst of one-off hosts kept a pool, and up to SMTP_MAX_CONNECTIONS idle sockets each, per address for the idle time.
 */
const MAX_POOLS = 1_000;

interface Entry {
  pool: SMTPPool;
  lastUsed: number;
}

export interface TransporterPoolOptions {
  maxPools?: number;
}

/**
 * One nodemailer SMTP connection pool per destination (the relay, or one MX
 * address), so messages to the same host reuse open SMTP sessions. The pools
 * are used without nodemailer's Mailer in front: the message is already
 * composed and signed, and the Mailer would parse it back into a tree and
 * stream it through four more streams (see smtp-send.ts).
 *
 * Bounded: a pool unused for IDLE_CLOSE_MS is closed, and past maxPools the
 * least recently used go first. Only a pool with no message queued or being
 * sent is ever closed here: closing one fails the messages still waiting for a
 * connection, and a new pool for the same host would open connections beyond
 * SMTP_MAX_CONNECTIONS next to the old ones (an exchange may outlast
 * IDLE_CLOSE_MS, up to SMTP_MESSAGE_TIMEOUT_MS). Busy pools are as many as the
 * deliveries in flight, so they may go past the bound only that far.
 */
export class TransporterPool {
  /** key → its pool, least recently used first (each use re-inserts it, and a Map keeps insertion order). */
  private readonly entries = new Map<string, Entry>();
  private readonly shutdown = new AbortController();
  private readonly maxPools: number;
  /** What bounds each exchange over these pools (sendRaw): its deadline, and abort() at shutdown. */
  readonly limits: ExchangeLimits;

  constructor(messageTimeoutMs: number, options: TransporterPoolOptions = {}) {
    // Every exchange in flight listens for the shutdown and lets go when it ends: as many listeners as
    // deliveries in flight (DELIVERY_CONCURRENCY), which past EventTarget's default of 10 logged a
    // MaxListenersExceededWarning calling it a possible leak, though none was kept.
    setMaxListeners(Infinity, this.shutdown.signal);
    this.limits = { messageTimeoutMs, shutdown: this.shutdown.signal };
    this.maxPools = options.maxPools ?? MAX_POOLS;
  }

  /** Cuts off every exchange in flight over these pools (DeliveryTransport.abort). */
  abort(): void {
    this.shutdown.abort();
  }

  get(key: string, options: () => SMTPPool.Options): SMTPPool {
    // A clock that never goes back: the wall clock set back would keep every pool an idle time longer.
    const now = performance.now();
    const kept = this.entries.get(key);
    this.entries.delete(key);
    this.closeIdle(now);
    this.makeRoom();
    const pool = kept?.pool ?? new SMTPPool(options());
    this.entries.set(key, { pool, lastUsed: now });
    return pool;
  }

  close(): void {
    for (const entry of this.entries.values()) entry.pool.close();
    this.entries.clear();
  }

  /** Closes the pools unused for IDLE_CLOSE_MS; they are first in the map, so the first one used since ends the look. */
  private closeIdle(now: number): void {
    for (const [key, entry] of this.entries) {
      if (now - entry.lastUsed <= IDLE_CLOSE_MS) return;
      this.closeUnlessBusy(key, entry);
    }
  }

  /** Room for one more pool: the least recently used idle ones go. */
  private makeRoom(): void {
    for (const [key, entry] of this.entries) {
      if (this.entries.size < this.maxPools) return;
      this.closeUnlessBusy(key, entry);
    }
  }

  private closeUnlessBusy(key: string, entry: Entry): void {
    if (entry.pool.pendingCount() > 0) return;
    entry.pool.close();
    this.entries.delete(key);
  }
}
