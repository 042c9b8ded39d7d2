import SMTPPool from 'nodemailer/lib/smtp-pool';
import type { ExchangeLimits } from './smtp-send';

/** A pool unused this long is closed, so one-off MX hosts do not keep sockets and memory. */
const IDLE_CLOSE_MS = 5 * 60_000;

interface Entry {
  pool: SMTPPool;
  lastUsed: number;
}

/**
 * One nodemailer SMTP connection pool per destination (the relay, or one MX
 * address), so messages to the same host reuse open SMTP sessions. The pools
 * are used without nodemailer's Mailer in front: the message is already
 * composed and signed, and the Mailer would parse it back into a tree and
 * stream it through four more streams (see smtp-send.ts).
 */
export class TransporterPool {
  private readonly entries = new Map<string, Entry>();
  private readonly shutdown = new AbortController();
  /** What bounds each exchange over these pools (sendRaw): its deadline, and abort() at shutdown. */
  readonly limits: ExchangeLimits;

  constructor(messageTimeoutMs: number) {
    this.limits = { messageTimeoutMs, shutdown: this.shutdown.signal };
  }

  /** Cuts off every exchange in flight over these pools (DeliveryTransport.abort). */
  abort(): void {
    this.shutdown.abort();
  }

  get(key: string, options: () => SMTPPool.Options): SMTPPool {
    const now = Date.now();
    this.sweep(now);
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { pool: new SMTPPool(options()), lastUsed: now };
      this.entries.set(key, entry);
    }
    entry.lastUsed = now;
    return entry.pool;
  }

  close(): void {
    for (const entry of this.entries.values()) entry.pool.close();
    this.entries.clear();
  }

  private sweep(now: number): void {
    for (const [key, entry] of this.entries) {
      if (now - entry.lastUsed > IDLE_CLOSE_MS) {
        entry.pool.close();
        this.entries.delete(key);
      }
    }
  }
}
