import { Injectable } from '@nestjs/common';
import { GroupCommitter, rolledBackForSure } from '@mailroom/database';
import { CALLER_GONE } from './caller-gone';
import { EmailToStore, everyWritten, EmailWriter } from './email-writer';
import { NewEmail } from './new-email.builder';
import { SendingDomainDeleted } from './sending-domain-deleted';

/**
 * Commits single sends without an Idempotency-Key together: under load, a
 * write per request spends most of its time in round trips and WAL flushes,
 * while one write for the sends of the same moment costs about as much as
 * one. Sends with a key keep their own transaction, because the key's row
 * lock and answer belong to exactly one request.
 */
@Injectable()
export class SingleSendCommitter {
  private readonly committer: GroupCommitter<EmailToStore, NewEmail | typeof CALLER_GONE>;

  constructor(writer: EmailWriter) {
    // Four writes at most leaves the rest of the pool to batches, keyed sends and reads.
    this.committer = new GroupCommitter((emails) => writer.writeAtomically(emails), {
      maxBatch: 64,
      maxInFlight: 4,
      // One send whose domain was deleted refuses the write of all: the others are written again, each alone.
      retryAlone: (error) => error instanceof SendingDomainDeleted || rolledBackForSure(error),
    });
  }

  /**
   * Resolves once the email, its recipients and its outbox event are committed; rejects with 503, nothing
   * written, when its caller stopped waiting (its deadline passed) before the write that would take it began.
   */
  async commit(email: EmailToStore): Promise<NewEmail> {
    const [created] = everyWritten([await this.committer.submit(email)]);
    return created;
  }
}
