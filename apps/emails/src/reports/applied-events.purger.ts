import { Injectable } from '@nestjs/common';
import { EVENT_STREAM_MAX_AGE_MS } from '@mailroom/outbox';
import { PeriodicPurger } from '@mailroom/runtime';
import { AppliedEventsRepository } from './applied-events.repository';

/** A day past the stream's own retention: the stream cannot deliver an event older than that again. */
export const APPLIED_EVENTS_RETENTION_MS = EVENT_STREAM_MAX_AGE_MS + 24 * 60 * 60 * 1000;

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
