import { createTransport, Transporter } from 'nodemailer';
import type { SMTPPoolOptions } from 'nodemailer/lib/smtp-pool';

/** A pool unused this long is closed, so one-off MX hosts do not keep sockets and memory. */
const IDLE_CLOSE_MS = 5 * 60_000;

interface Entry {
  transporter: Transporter;
  lastUsed: number;
}

/**
 * One pooled nodemailer transporter per destination (the relay, or one MX
 * address), so messages to the same host reuse open SMTP sessions.
 */
export class TransporterPool {
  private readonly entries = new Map<string, Entry>();

  get(key: string, options: () => SMTPPoolOptions): Transporter {
    const now = Date.now();
    this.sweep(now);
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { transporter: createTransport({ ...options(), pool: true }), lastUsed: now };
      this.entries.set(key, entry);
    }
    entry.lastUsed = now;
    return entry.transporter;
  }

  close(): void {
    for (const entry of this.entries.values()) entry.transporter.close();
    this.entries.clear();
  }

  private sweep(now: number): void {
    for (const [key, entry] of this.entries) {
      if (now - entry.lastUsed > IDLE_CLOSE_MS) {
        entry.transporter.close();
        this.entries.delete(key);
      }
    }
  }
}
