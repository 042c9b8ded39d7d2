import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { LeasedClaimLoop } from '@mailroom/runtime';
import { WebhookSettings } from '../webhook-settings';
import { ClaimedDelivery, DispatchRepository } from './dispatch.repository';
import { DeliveryAttempter } from './delivery-attempter';
import { DeliveryPool } from './delivery-pool';
import { deliveryPoolPeakGauge } from './delivery-pool-metrics';
import { handedBackDeliveries } from './slow-endpoint-metrics';
import { SLOW_AFTER_TIMEOUT_SHARE } from './slow-endpoints';

/**
 * The delivery loop of one dispatcher: up to WEBHOOK_CONCURRENCY requests in
 * flight, at most WEBHOOK_CONCURRENCY_PER_ENDPOINT of them to one webhook,
 * and no more than WEBHOOK_DELIVERY_BUFFER_BYTES of payloads held.
 * Each endpoint holds a small prefetched batch (DeliveryPool), so a freed
 * slot is refilled at once and claims come once per batch. A request's slot
 * frees when its HTTP exchange ends; its result is then written in a batch
 * (AttemptRecorder) while the delivery keeps its lease. It polls every
 * WEBHOOK_POLL_MS, at once when this replica fanned out new events, and when
 * an endpoint runs low. Leases are renewed until results are written; a
 * crashed replica's leases expire and any replica takes the deliveries over.
 * A request still open after a quarter of WEBHOOK_TIMEOUT_MS makes its
 * endpoint slow (DeliveryPool.turnSlow): its queued deliveries are handed
 * back, and it shares half the slots with the other slow ones.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(DeliveryWorker.name);
  private readonly pool: DeliveryPool;
  private readonly slowAfterMs: number;
  /** Attempts under way (sending or recording); shutdown waits for them. */
  private readonly working = new Set<Promise<void>>();
  private readonly loop: LeasedClaimLoop;

  constructor(
    private readonly repository: DispatchRepository,
    private readonly attempter: DeliveryAttempter,
    private readonly settings: WebhookSettings,
  ) {
    this.pool = new DeliveryPool({ concurrency: settings.concurrency, perEndpoint: settings.concurrencyPerEndpoint, bufferBytes: settings.deliveryBufferBytes });
    deliveryPoolPeakGauge.set(0);
    this.slowAfterMs = settings.timeoutMs * SLOW_AFTER_TIMEOUT_SHARE;
    this.loop = new LeasedClaimLoop({
      logger: this.logger,
      claiming: 'due deliveries',
      pollMs: settings.pollMs,
      leaseMs: settings.leaseMs,
      claim: (owner) => this.claim(owner),
      // Until its result is written, not only while its request is open.
      held: () => this.pool.ids(),
      renew: (owner, ids, leaseMs) => this.repository.renewLeases(owner, ids, leaseMs),
    });
  }

  /** This replica's name on its leases. */
  get owner(): string {
    return this.loop.owner;
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  /**
   * Deliveries still queued give their leases back, and requests in flight
   * are aborted and their deliveries released unrecorded, so another replica
   * (or this one, restarted) sends them at once: the receiver may see an
   * event twice, with the same event id, never zero times.
   */
  async beforeApplicationShutdown(): Promise<void> {
    await this.loop.stopPolling();
    await this.repository.releaseLeases(this.owner, this.pool.drainQueued()).catch((error: Error) => {
      this.logger.warn({ err: error.message }, 'releasing queued deliveries failed; their leases will expire');
    });
    this.attempter.stop();
    await Promise.allSettled([...this.working]);
    this.loop.stopRenewing();
    this.attempter.close();
  }

  /** Poll now: new deliveries were just created, or an endpoint needs its next batch. */
  wake(): void {
    this.loop.wake();
  }

  /** Claims what the pool has room for, and starts what it may send. */
  private async claim(owner: string): Promise<boolean | undefined> {
    const limits = this.pool.claimLimits();
    if (limits.limit <= 0) return undefined;
    const claimed = await this.repository.claimDue(owner, this.settings.leaseMs, limits.limit, limits.perEndpoint, limits.held, limits.slow, limits.bytes);
    for (const delivery of claimed) this.pool.add(delivery);
    deliveryPoolPeakGauge.set(this.pool.peakBytes);
    this.pump();
    this.handBack(this.pool.takeQueuedBehindSlow());
    return claimed.length === limits.limit;
  }

  /** Starts every queued delivery a slot is free for. */
  private pump(): void {
    if (!this.loop.running) return;
    for (const delivery of this.pool.takeSendable()) this.start(delivery);
  }

  private start(delivery: ClaimedDelivery): void {
    const slotFreed = () => {
      this.pump();
      if (this.pool.runningLow(delivery.webhookId)) this.wake();
    };
    const pace = this.watchPace(delivery.webhookId);
    const work = this.attempter
      .attempt(delivery, this.owner, () => {
        pace.answered();
        this.pool.markSent(delivery.id);
        slotFreed();
      })
      .catch((error: Error) => {
        // Faults while preparing or making the request are recorded as attempts (DeliveryAttempter.send), so only
        // the database refusing to record one lands here: nothing can be written, so the lease is left to expire and
        // the delivery is tried again at lease pace rather than in a hot loop.
        this.logger.error({ deliveryId: delivery.id, err: error.message }, 'webhook delivery failed unexpectedly');
      })
      .finally(() => {
        pace.cancel();
        this.working.delete(work);
        this.pool.remove(delivery.id);
        slotFreed();
      });
    this.working.add(work);
  }

  /** Turns the endpoint slow once the request has been open slowAfterMs, or fast again when it ends sooner. */
  private watchPace(webhookId: string): { answered(): void; cancel(): void } {
    const startedAt = performance.now();
    const timer = setTimeout(() => this.turnSlow(webhookId), this.slowAfterMs);
    return {
      answered: () => {
        clearTimeout(timer);
        // Also here, not only from the timer: a busy event loop can run the answer's callback before the timer's.
        if (performance.now() - startedAt < this.slowAfterMs) this.pool.turnFast(webhookId);
        else this.turnSlow(webhookId);
      },
      cancel: () => clearTimeout(timer),
    };
  }

  /**
   * The endpoint's queued deliveries go back unsent and due as they were (sent
   * later, one at a time, or by another replica; never lost, and not sent
   * twice since they were not sent at all), and the slots its open requests
   * take beyond the slow share are free for the other endpoints.
   */
  private turnSlow(webhookId: string): void {
    if (!this.loop.running) return;
    if (!this.pool.isSlow(webhookId)) this.logger.log({ webhookId, slowAfterMs: this.slowAfterMs }, 'webhook endpoint answers slowly: one request at a time until it answers quickly');
    this.handBack(this.pool.turnSlow(webhookId));
    this.pump();
    this.wake();
  }

  /** Gives slow endpoints' queued deliveries back unsent, due as they were. */
  private handBack(ids: string[]): void {
    if (!ids.length) return;
    handedBackDeliveries.inc(ids.length);
    this.repository.releaseLeases(this.owner, ids).catch((error: Error) => {
      this.logger.warn({ deliveryIds: ids, err: error.message }, 'handing back a slow endpoint\'s deliveries failed; their leases will expire');
    });
  }
}
