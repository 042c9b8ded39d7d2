import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { FailureLogger, RepeatedFailureLog } from './repeated-failure-log';

export interface LeasedClaimLoopOptions {
  logger: FailureLogger;
  /** What is claimed, for the log: 'due emails'. */
  claiming: string;
  /** How long to wait between polls that found less than they had room for. */
  pollMs: number;
  /** How long a claim's lease lasts; it is renewed every third of it (at least every 250 ms) while held. */
  leaseMs: number;
  /**
   * Claims as much due work as there is room for, under `owner`: true when it
   * filled that room, so more may be due at once; undefined when it had no
   * room and asked the database nothing.
   */
  claim(owner: string): Promise<boolean | undefined>;
  /** The ids whose leases this process holds now. */
  held(): string[];
  /** Extends the leases of `ids` by `leaseMs`. */
  renew(owner: string, ids: string[], leaseMs: number): Promise<unknown>;
}

/**
 * The poll-and-lease skeleton of a worker that claims due rows from Postgres
 * (the emails delivery worker and the webhook dispatcher's): one poll at a
 * time; the next every `pollMs`, or at once after a poll that filled its room
 * or was woken; a claim failure logged once per stretch (RepeatedFailureLog);
 * leases renewed while held. What is claimed, and what is done with it, is
 * the worker's. A crashed process's leases simply expire and any replica
 * takes the work over.
 */
export class LeasedClaimLoop {
  /** This process's name on its leases: unique across replicas and restarts. */
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly claimFailures: RepeatedFailureLog;
  private active = false;
  private polling = false;
  private pollAgain = false;
  /** The poll under way, if any: stopPolling waits for it, so what it is claiming is handled, not stranded under a lease. */
  private currentPoll: Promise<void> | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private renewTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: LeasedClaimLoopOptions) {
    this.claimFailures = new RepeatedFailureLog(options.logger, `claiming ${options.claiming}`);
  }

  /** False once stopPolling was called: nothing new is to be started. */
  get running(): boolean {
    return this.active;
  }

  start(): void {
    this.active = true;
    this.renewTimer = setInterval(() => this.renewLeases(), Math.max(250, Math.floor(this.options.leaseMs / 3)));
    this.schedulePoll(0);
  }

  /** Poll now; if a poll is under way, once more as soon as it ends (new work was just made). */
  wake(): void {
    if (!this.active) return;
    if (this.polling) this.pollAgain = true;
    else this.schedulePoll(0);
  }

  /**
   * Poll now unless a poll is under way (a slot was freed). That poll then
   * waits `pollMs` unless it filled its room: under steady load slots free
   * all the time, and polling again after every poll would claim a handful
   * at a time in back-to-back queries.
   */
  wakeIfIdle(): void {
    if (!this.polling) this.schedulePoll(0);
  }

  /** No poll starts after this; answers once the poll under way, if any, has ended. Leases are still renewed. */
  async stopPolling(): Promise<void> {
    this.active = false;
    clearTimeout(this.pollTimer);
    await this.currentPoll;
  }

  /** The last step of a shutdown, once nothing is held any more (or what is left is to expire). */
  stopRenewing(): void {
    clearInterval(this.renewTimer);
  }

  private schedulePoll(delayMs: number): void {
    if (!this.active) return;
    clearTimeout(this.pollTimer);
    this.pollTimer = setTimeout(() => {
      this.currentPoll = this.poll();
    }, delayMs);
  }

  private async poll(): Promise<void> {
    if (!this.active || this.polling) return;
    this.polling = true;
    this.pollAgain = false;
    let again = false;
    try {
      const filled = await this.options.claim(this.owner);
      if (filled === undefined) return;
      this.claimFailures.succeeded();
      again = filled;
    } catch (error) {
      if (this.active) this.claimFailures.failed(error);
    } finally {
      this.polling = false;
      this.schedulePoll(again || this.pollAgain ? 0 : this.options.pollMs);
    }
  }

  private renewLeases(): void {
    const ids = this.options.held();
    if (!ids.length) return;
    this.options.renew(this.owner, ids, this.options.leaseMs).catch((error: Error) => {
      this.options.logger.warn({ err: error.message }, `renewing the leases on ${this.options.claiming} failed`);
    });
  }
}
