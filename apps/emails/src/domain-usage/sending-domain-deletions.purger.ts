import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { deleteInBatches } from '@mailroom/database';
import { LAST_READ_MAX_AGE_MS, PeriodicPurger } from '@mailroom/runtime';

/**
 * How long a recorded deletion keeps refusing the sends that found its domain
 * verified. Such a send read the domain before the deletion: from the domains
 * service moments before, or, while that service is away, from its last
 * answer, which stands in for up to LAST_READ_MAX_AGE_MS (a day). Past that
 * plus a day's margin (clock skew, a send's own time) no send can still carry
 * the domain's id; the name added again is a new id anyway.
 */
export const SENDING_DOMAIN_DELETIONS_RETENTION_MS = LAST_READ_MAX_AGE_MS + 24 * 60 * 60_000;

/** Forgets, once an hour, the sending domain deletions no send can cross any more (one row per deleted domain, for ever, otherwise). */
@Injectable()
export class SendingDomainDeletionsPurger extends PeriodicPurger {
  protected readonly what = 'sending domain deletions no send can cross any more';
  protected readonly everyMs = 60 * 60 * 1000;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super();
  }

  protected purge(): Promise<number> {
    return this.purgeOlderThan(SENDING_DOMAIN_DELETIONS_RETENTION_MS);
  }

  purgeOlderThan(retentionMs: number): Promise<number> {
    return deleteInBatches(this.dataSource, {
      table: 'emails.sending_domain_deletions',
      key: 'domain_id',
      where: 'deleted_at < now() - make_interval(secs => $1::double precision / 1000)',
      parameters: [retentionMs],
    });
  }
}
