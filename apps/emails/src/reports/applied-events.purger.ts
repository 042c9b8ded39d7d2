import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { EVENT_STREAM_MAX_AGE_MS } from '@mailroom/outbox';
import { schedulePurge } from '@mailroom/runtime';
import { AppliedEventsRepository } from './applied-events.repository';

/** A day past the stream's own retention: the stream cannot deliver an event older than that again. */
export const APPLIED_EVENTS_RETENTION_MS = EVENT_STREAM_MAX_AGE_MS + 24 * 60 * 60 * 1000;
const PURGE_EVERY_MS = 60 * 60 * 1000;

/** Forgets, once an hour, the applied report ids no redelivery can match any more, for every report consumer at once. */
@Injectable()
export class AppliedEventsPurger implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(AppliedEventsPurger.name);
  private timer?: NodeJS.Timeout;

  constructor(private readonly appliedEvents: AppliedEventsRepository) {}

  onApplicationBootstrap(): void {
    this.timer = schedulePurge(this.logger, "applied report ids past the event stream's retention", PURGE_EVERY_MS, () =>
      this.appliedEvents.purgeOlderThan(APPLIED_EVENTS_RETENTION_MS),
    );
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }
}
