import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { WebhookSettings } from '../webhook-settings';
import { ClaimedDelivery, DispatchRepository } from './dispatch.repository';
import { DeliveryAttempter } from './delivery-attempter';

/**
 * The delivery pool of one dispatcher: up to WEBHOOK_CONCURRENCY requests in
 * flight, at most WEBHOOK_CONCURRENCY_PER_ENDPOINT of them to one webhook.
 * It polls every WEBHOOK_POLL_MS, and at once when this replica fanned out
 * new events or a request finished. Leases are renewed while requests run; a
 * crashed replica's leases expire and any replica takes the deliveries over.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(DeliveryWorker.name);
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly inFlight = new Map<string, { webhookId: string; work: Promise<void> }>();
  private running = false;
  private polling = false;
  private pollAgain = false;
  private pollTimer: NodeJS.Timeout | undefined;
  private renewTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly repository: DispatchRepository,
    private readonly attempter: DeliveryAttempter,
    private readonly settings: WebhookSettings,
  ) {}

  onApplicationBootstrap(): void {
    this.running = true;
    this.renewTimer = setInterval(() => this.renewLeases(), Math.max(250, Math.floor(this.settings.leaseMs / 3)));
    this.schedulePoll(0);
  }

  /**
   * Requests in flight are aborted and their deliveries released unrecorded,
   * so another replica (or this one, restarted) sends them at once: the
   * receiver may see an event twice, with the same event id, never zero times.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.running = false;
    clearTimeout(this.pollTimer);
    this.attempter.stop();
    await Promise.allSettled([...this.inFlight.values()].map((entry) => entry.work));
    clearInterval(this.renewTimer);
    this.attempter.close();
  }

  /** Poll now: new deliveries were just created, or a slot freed. */
  wake(): void {
    if (!this.running) return;
    if (this.polling) this.pollAgain = true;
    else this.schedulePoll(0);
  }

  private schedulePoll(delayMs: number): void {
    if (!this.running) return;
    clearTimeout(this.pollTimer);
    this.pollTimer = setTimeout(() => void this.poll(), delayMs);
  }

  private async poll(): Promise<void> {
    if (!this.running || this.polling) return;
    this.polling = true;
    this.pollAgain = false;
    let again = false;
    try {
      const free = this.settings.concurrency - this.inFlight.size;
      if (free > 0) {
        const claimed = await this.repository.claimDue(this.owner, this.settings.leaseMs, free, this.settings.concurrencyPerEndpoint, this.perEndpoint());
        for (const delivery of claimed) this.start(delivery);
        again = claimed.length === free;
      }
    } catch (error) {
      if (this.running) this.logger.error({ err: (error as Error).message }, 'claiming due deliveries failed');
    } finally {
      this.polling = false;
      this.schedulePoll(again || this.pollAgain ? 0 : this.settings.pollMs);
    }
  }

  private perEndpoint(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const { webhookId } of this.inFlight.values()) counts[webhookId] = (counts[webhookId] ?? 0) + 1;
    return counts;
  }

  private start(delivery: ClaimedDelivery): void {
    const work = this.attempter
      .attempt(delivery, this.owner)
      .catch((error: Error) => {
        // The lease is left to expire, so a persistent fault is retried at lease pace rather than in a hot loop.
        this.logger.error({ deliveryId: delivery.id, err: error.message }, 'webhook delivery failed unexpectedly');
      })
      .finally(() => {
        this.inFlight.delete(delivery.id);
        this.wake();
      });
    this.inFlight.set(delivery.id, { webhookId: delivery.webhookId, work });
  }

  private renewLeases(): void {
    const ids = [...this.inFlight.keys()];
    if (!ids.length) return;
    this.repository.renewLeases(this.owner, ids, this.settings.leaseMs).catch((error: Error) => {
      this.logger.warn({ err: error.message }, 'renewing delivery leases failed');
    });
  }
}
