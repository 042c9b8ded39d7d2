import { Injectable } from '@nestjs/common';
import { PeriodicPurger } from '@mailroom/runtime';
import { TlsrptRepository } from './tlsrpt.repository';

/** Days of TLS report counts and reports kept: a week of history to look into after the reports went. */
export const TLSRPT_RETENTION_DAYS = 14;

/** Drops TLS report counts and reports older than TLSRPT_RETENTION_DAYS, once an hour. */
@Injectable()
export class TlsrptPurger extends PeriodicPurger {
  protected readonly what = `TLS report counts and reports older than ${TLSRPT_RETENTION_DAYS} days`;
  protected readonly everyMs = 60 * 60 * 1000;

  constructor(private readonly repository: TlsrptRepository) {
    super();
  }

  protected purge(): Promise<number> {
    const firstKept = new Date(Date.now() - TLSRPT_RETENTION_DAYS * 86_400_000).toISOString().slice(0, 10);
    return this.repository.purgeBefore(firstKept);
  }
}
