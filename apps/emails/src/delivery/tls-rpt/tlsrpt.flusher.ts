import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { MailroomConfig } from '@mailroom/config';
import { MAILROOM_CONFIG, repeatEvery, RepeatingTask } from '@mailroom/runtime';
import { TlsrptRepository } from './tlsrpt.repository';
import { TlsSessionCounts } from './tls-session-counts';

export const TLS_SESSION_COUNTS = Symbol('TlsSessionCounts');

/**
 * Adds the TLS report counts this process gathered in memory to emails.tlsrpt_counts every TLSRPT_FLUSH_INTERVAL,
 * and once more at shutdown, in onApplicationShutdown: after the delivery worker's drain (beforeApplicationShutdown)
 * has let every session in flight end and be counted, and before the database connections close (the database
 * module is further from the root module, so Nest shuts it down later). Counts the database did not take are kept
 * for the next flush; only a process that dies (or whose last flush fails) loses what it held.
 */
@Injectable()
export class TlsrptFlusher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(TlsrptFlusher.name);
  private loop?: RepeatingTask;

  constructor(
    @Inject(TLS_SESSION_COUNTS) private readonly counts: TlsSessionCounts,
    private readonly repository: TlsrptRepository,
    @Inject(MAILROOM_CONFIG) private readonly config: MailroomConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.loop = repeatEvery(this.config.TLSRPT_FLUSH_INTERVAL, () => this.flush());
  }

  async onApplicationShutdown(): Promise<void> {
    await this.loop?.stop();
    await this.flush();
  }

  private async flush(): Promise<void> {
    const rows = this.counts.take();
    if (this.counts.dropped) {
      this.logger.warn(`${this.counts.dropped} TLS sessions not counted: too many distinct MX hosts and results between two flushes`);
      this.counts.dropped = 0;
    }
    try {
      await this.repository.addCounts(rows);
    } catch (error) {
      this.counts.putBack(rows);
      this.logger.warn({ err: (error as Error).message }, 'storing TLS report counts failed; the next flush retries');
    }
  }
}
