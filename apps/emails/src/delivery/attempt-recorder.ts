import { Injectable } from '@nestjs/common';
import { GroupCommitter, unlessDatabaseUnavailable } from '@mailroom/database';
import { AttemptRecord, AttemptsRepository, RecordedOutcomes } from './attempts.repository';

interface OwnedAttempt {
  owner: string;
  record: AttemptRecord;
}

/**
 * Group commit for delivery attempts: attempts that finish while a batch is
 * being written go into the next one (one write at a time), so a busy worker
 * commits once per batch instead of once per email, and an idle one still
 * writes at once (no timer, so the window between the SMTP reply and its
 * record, in which a crash means sending again, does not grow). A batch that
 * fails is written again one attempt at a time, so one bad row cannot fail
 * the rest (a database that is away fails the batch at once); writing again is
 * safe because every write is fenced on the lease.
 */
@Injectable()
export class AttemptRecorder {
  private readonly committer = new GroupCommitter<OwnedAttempt, ReadonlySet<string> | null>((attempts) => this.write(attempts), {
    // Enough to absorb every slot of a busy worker (DELIVERY_CONCURRENCY is at most 1000) in a few transactions.
    maxBatch: 200,
    maxInFlight: 1,
    retryAlone: unlessDatabaseUnavailable,
  });

  constructor(private readonly repository: AttemptsRepository) {}

  /**
   * Resolves once written with the recipients whose outcome was applied (not one a report settled meanwhile),
   * or null when another worker took the email over (nothing written).
   */
  record(owner: string, record: AttemptRecord): Promise<ReadonlySet<string> | null> {
    return this.committer.submit({ owner, record });
  }

  /** A process runs one worker, so a batch has one owner in practice; each owner's attempts are one write. */
  private async write(attempts: OwnedAttempt[]): Promise<Array<ReadonlySet<string> | null>> {
    const recorded: RecordedOutcomes = new Map();
    for (const owner of new Set(attempts.map((attempt) => attempt.owner))) {
      const records = attempts.filter((attempt) => attempt.owner === owner).map((attempt) => attempt.record);
      for (const [id, applied] of await this.repository.recordAttempts(owner, records)) recorded.set(id, applied);
    }
    return attempts.map((attempt) => recorded.get(attempt.record.email.id) ?? null);
  }
}
