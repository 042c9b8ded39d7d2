import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { repeatEvery, RepeatingTask } from '@mailroom/runtime';
import { EmailCountsRepository } from './email-counts.repository';

/** Shared by every replica (and by tests that hold compaction back). */
export const EMAIL_COUNTS_COMPACTION_LOCK = 0x636e7473; // "cnts"

const EVERY_MS = 1000;

/**
 * Folds the deltas the emails triggers append into the count buckets, so the
 * deltas a count has to add up stay a second's worth. Counts are exact
 * without it; it only keeps them cheap.
 */
@Injectable()
export class EmailCountsCompactor implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(EmailCountsCompactor.name);
  private loop?: RepeatingTask;

  constructor(private readonly counts: EmailCountsRepository) {}

  onApplicationBootstrap(): void {
    this.loop = repeatEvery(EVERY_MS, () => this.fold());
  }

  async onModuleDestroy(): Promise<void> {
    await this.loop?.stop();
  }

  private async fold(): Promise<void> {
    try {
      await this.counts.foldDeltas(EMAIL_COUNTS_COMPACTION_LOCK);
    } catch (error) {
      // The deltas stay and counts stay exact; the next round retries.
      this.logger.warn(`folding email count deltas failed: ${(error as Error).message}`);
    }
  }
}
