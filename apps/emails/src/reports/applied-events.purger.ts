import { Injectable } from '@nestjs/common';
import { APPLIED_EVENTS_RETENTION_MS } from '@mailroom/outbox';
import { PeriodicPurger } from '@mailroom/runtime';
import { AppliedEventsRepository } from './applied-events.repository';


/** Forgets, once an hour, the applied report ids no redelivery can match any more, for every report consumer at once. */
@Injectable()
export class AppliedEventsPurger extends PeriodicPurger {
  protected readonly what = "applied report ids past the event stream's retention";
  protected readonly everyMs = 60 * 60 * 1000;

  constructor(private readonly appliedEvents: AppliedEventsRepository) {
    super();
  }

  protected purge(): Promise<number> {
    return this.appliedEvents.purgeOlderThan(APPLIED_EVENTS_RETENTION_MS);
  }
}
