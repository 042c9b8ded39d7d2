import { Injectable } from '@nestjs/common';
import { GroupCommitter, unlessDatabaseUnavailable } from '@mailroom/database';
import { WebhookSettings } from '../webhook-settings';
import { AttemptRecord, DispatchRepository } from './dispatch.repository';

/**
 * Group commit for attempt results: attempts that finish while a batch is
 * being written go into the next one (one write at a time), so a busy
 * dispatcher commits once per batch instead of once per delivery, and an idle
 * one still writes at once. A delivery keeps its lease until its attempt is
 * written; a batch that fails is written again one attempt at a time, so one
 * bad row cannot fail the rest (a database that is away fails the batch at
 * once), and writing again is safe because every write
 * is fenced on the lease.
 */
@Injectable()
export class AttemptRecorder {
  private readonly committer = new GroupCommitter<AttemptRecord, boolean>((records) => this.write(records), {
    maxBatch: 200,
    maxInFlight: 1,
    retryAlone: unlessDatabaseUnavailable,
  });

  constructor(
    private readonly repository: DispatchRepository,
    private readonly settings: WebhookSettings,
  ) {}

  /** Resolves true once written, false when another dispatcher took the delivery over (nothing written). */
  record(record: AttemptRecord): Promise<boolean> {
    return this.committer.submit(record);
  }

  private async write(records: AttemptRecord[]): Promise<boolean[]> {
    const recorded = await this.repository.recordAttempts(records, this.settings.disablePolicy);
    return records.map((record) => recorded.has(record.delivery.id));
  }
}
