import { Injectable } from '@nestjs/common';
import { PeriodicPurger } from '@mailroom/runtime';
import { MtaStsRepository } from './mta-sts.repository';

/** Drops cached MTA-STS policies past their max_age, once an hour (they are never read again, only refetched). */
@Injectable()
export class MtaStsPurger extends PeriodicPurger {
  protected readonly what = 'MTA-STS policies past their max_age';
  protected readonly everyMs = 60 * 60 * 1000;

  constructor(private readonly policies: MtaStsRepository) {
    super();
  }

  protected purge(): Promise<number> {
    return this.policies.purgeExpired();
  }
}
