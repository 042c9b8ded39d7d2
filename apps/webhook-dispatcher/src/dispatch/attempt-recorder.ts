import { Injectable } from '@nestjs/common';
import { WebhookSettings } from '../webhook-settings';
import { AttemptRecord, DispatchRepository } from './dispatch.repository';

const MAX_BATCH = 200;

interface Pending {
  record: AttemptRecord;
  resolve(recorded: boolean): void;
  reject(error: Error): void;
}

/**
 * Group commit for attempt results: attempts that finish while a batch is
 * being written go into the next one, so a busy dispatcher commits once per
 * batch instead of once per delivery, and an idle one still writes at once.
 * A delivery keeps its lease until its attempt is written; a batch that fails
 * is written again one attempt at a time, so one bad row cannot fail the rest.
 */
@Injectable()
export class AttemptRecorder {
  private readonly queue: Pending[] = [];
  private flushing?: Promise<void>;

  constructor(
    private readonly repository: DispatchRepository,
    private readonly settings: WebhookSettings,
  ) {}

  /** Resolves true once written, false when another dispatcher took the delivery over (nothing written). */
  record(record: AttemptRecord): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.queue.push({ record, resolve, reject });
      if (!this.flushing) this.flushing = this.flush();
    });
  }

  private async flush(): Promise<void> {
    try {
      while (this.queue.length) await this.write(this.queue.splice(0, MAX_BATCH));
    } finally {
      this.flushing = undefined;
    }
  }

  private async write(batch: Pending[]): Promise<void> {
    try {
      const recorded = await this.repository.recordAttempts(
        batch.map((item) => item.record),
        this.settings.disablePolicy,
      );
      for (const item of batch) item.resolve(recorded.has(item.record.delivery.id));
    } catch (error) {
      if (batch.length === 1) batch[0].reject(error as Error);
      else for (const item of batch) await this.write([item]);
    }
  }
}
