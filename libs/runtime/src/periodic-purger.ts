import { Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { PurgeSchedule, schedulePurge } from './periodic-purge';

/**
 * A provider whose whole job is one retention purge on a timer (see
 * schedulePurge): started once the app has booted, stopped at shutdown. A
 * subclass says what it deletes, how often, and how; `enabled` leaves it off
 * (a retention set to off).
 */
export abstract class PeriodicPurger implements OnApplicationBootstrap, OnApplicationShutdown {
  protected readonly logger = new Logger(this.constructor.name);
  private schedule?: PurgeSchedule;

  /** What goes, for the log: "finished emails past EMAIL_RETENTION". */
  protected abstract readonly what: string;
  protected abstract readonly everyMs: number;
  /** Deletes what is due; answers how many rows went. */
  protected abstract purge(): Promise<number>;

  protected enabled(): boolean {
    return true;
  }

  onApplicationBootstrap(): void {
    if (this.enabled()) this.schedule = schedulePurge(this.logger, this.what, this.everyMs, () => this.purge());
  }

  onApplicationShutdown(): void {
    this.schedule?.stop();
  }
}
