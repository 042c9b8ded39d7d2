import { Injectable } from '@nestjs/common';
import { AttemptRecord, AttemptsRepository } from './attempts.repository';

/** Enough to absorb every slot of a busy worker (DELIVERY_CONCURRENCY is at most 1000) in a few transactions. */
const MAX_BATCH = 200;

interface Pending {
  owner: string;
  record: AttemptRecord;
  resolve(recorded: boolean): void;
  reject(error: Error): void;
}

/**
 * Group commit for delivery attempts: attempts that finish while a batch is
 * being written go into the next one, so a busy worker commits once per
 * batch instead of once per email, and an idle one still writes at once (no
 * timer, so the window between the SMTP reply and its record, in which a
 * crash means sending again, does not grow). A batch that fails is written
 * again one attempt at a time, so one bad row cannot fail the rest.
 */
@Injectable()
export class AttemptRecorder {
  private readonly queue: Pending[] = [];
  private flushing?: Promise<void>;

  constructor(private readonly repository: AttemptsRepository) {}

  /** Resolves true once written, false when another worker took the email over (nothing written). */
  record(owner: string, record: AttemptRecord): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.queue.push({ owner, record, resolve, reject });
      if (!this.flushing) this.flushing = this.flush();
    });
  }

  private async flush(): Promise<void> {
    try {
      while (this.queue.length) await this.write(this.takeBatch());
    } finally {
      this.flushing = undefined;
    }
  }

  /** The oldest pending attempts of one owner (a process has one worker, so in practice the oldest ones). */
  private takeBatch(): Pending[] {
    const owner = this.queue[0].owner;
    const batch: Pending[] = [];
    for (let index = 0; index < this.queue.length && batch.length < MAX_BATCH; ) {
      if (this.queue[index].owner === owner) batch.push(...this.queue.splice(index, 1));
      else index += 1;
    }
    return batch;
  }

  private async write(batch: Pending[]): Promise<void> {
    try {
      const recorded = await this.repository.recordAttempts(
        batch[0].owner,
        batch.map((item) => item.record),
      );
      for (const item of batch) item.resolve(recorded.has(item.record.email.id));
    } catch (error) {
      if (batch.length === 1) batch[0].reject(error as Error);
      else for (const item of batch) await this.write([item]);
    }
  }
}
