import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { RetiredKeysPurge } from '../dkim-rotation/retired-keys-purge';
import { DomainSettings } from '../domains/domain-settings';
import { DomainsRepository } from '../domains/domains.repository';
import { VerificationService } from './verification.service';

const BATCH_SIZE = 20;

/**
 * Background re-checks: pending domains with backoff until DOMAIN_PENDING_TIMEOUT,
 * verified ones every DOMAIN_VERIFIED_RECHECK_INTERVAL (with backoff while missing
 * records are confirmed), failed ones that had been verified slowly for a while
 * (see nextState: a due domain is one with next_check_at set). Due domains are claimed
 * in Postgres (FOR UPDATE SKIP LOCKED plus a lease), so replicas share the work
 * and a crashed replica's claims come due again. Each round also purges retiring DKIM keys past their week.
 */
@Injectable()
export class RecheckScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RecheckScheduler.name);
  private timer?: NodeJS.Timeout;
  private running = false;
  private tick?: Promise<void>;

  constructor(
    private readonly repository: DomainsRepository,
    private readonly verification: VerificationService,
    private readonly settings: DomainSettings,
    private readonly retiredKeys: RetiredKeysPurge,
  ) {}

  /** Poll at half the shortest interval, between 50 ms (compressed schedules in tests) and 30 s. */
  get pollMs(): number {
    const shortest = Math.min(this.settings.schedule.recheckSchedule[0], this.settings.schedule.verifiedRecheckMs);
    return Math.min(30_000, Math.max(50, Math.floor(shortest / 2)));
  }

  /** A claim outlives the slowest check: three lookups in parallel, each bounded by DNS_TIMEOUT_MS. */
  get leaseMs(): number {
    return this.settings.dnsTimeoutMs * 2 + 30_000;
  }

  onApplicationBootstrap(): void {
    this.running = true;
    this.schedule();
  }

  async onApplicationShutdown(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.tick;
  }

  /** Checks what is due now, and unpublishes rotated-out DKIM keys whose time is up; returns how many domains it checked. */
  async runOnce(): Promise<number> {
    await this.retiredKeys.run().catch((error: Error) => this.logger.warn({ err: error.message }, 'purging retired DKIM keys failed; tried again next round'));
    const ids = await this.repository.claimDue(new Date(), this.leaseMs, BATCH_SIZE);
    await Promise.all(
      ids.map((id) =>
        this.verification.recheck(id).catch((error: Error) => this.logger.warn({ domainId: id, err: error.message }, 'background domain check failed; retried when its claim expires')),
      ),
    );
    return ids.length;
  }

  private schedule(delayMs = this.pollMs): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      this.tick = this.runOnce()
        .catch((error: Error) => {
          this.logger.warn({ err: error.message }, 'claiming due domains failed');
          return 0;
        })
        // A full batch means more may be due: go again at once.
        .then((checked) => this.schedule(checked === BATCH_SIZE ? 0 : this.pollMs));
    }, delayMs);
  }
}
