import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { MailroomConfig } from '@mailroom/config';
import { appendEvents } from '@mailroom/outbox';
import { LeasedClaimLoop, MAILROOM_CONFIG } from '@mailroom/runtime';
import { ClaimedEmail, DeliveryRepository, DueRecipient } from './delivery.repository';
import { deliveryEvent, EmailDelivery } from './email-delivery.service';
import { shutdownWaits } from './shutdown-waits';
import { DELIVERY_TRANSPORT, DeliveryTransport } from './smtp/delivery-transport';


/** Whether `work` settled within `ms`. */
async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const settled = await Promise.race([work.then(() => true), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)))]);
  clearTimeout(timer);
  return settled;
}

/**
 * The worker pool of one emails process: up to DELIVERY_CONCURRENCY emails in
 * flight. It polls every DELIVERY_POLL_MS (≤ 250 ms, so a scheduled email
 * goes out at most that late when a slot is free; with every slot busy it
 * waits for one, as any due email does), claims as many due emails as it has
 * free slots, and polls again at once while there is more work or when a
 * slot frees between polls. Leases are renewed while deliveries run
 * (LeasedClaimLoop); a crashed process's leases simply expire and any replica
 * takes the emails over.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(DeliveryWorker.name);
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly loop: LeasedClaimLoop;

  constructor(
    private readonly repository: DeliveryRepository,
    private readonly delivery: EmailDelivery,
    @Inject(DELIVERY_TRANSPORT) private readonly transport: DeliveryTransport,
    @Inject(MAILROOM_CONFIG) private readonly config: MailroomConfig,
  ) {
    this.loop = new LeasedClaimLoop({
      logger: this.logger,
      claiming: 'due emails',
      pollMs: config.DELIVERY_POLL_MS,
      leaseMs: config.DELIVERY_LEASE_MS,
      claim: (owner) => this.claim(owner),
      held: () => [...this.inFlight.keys()],
      renew: (owner, ids, leaseMs) => this.repository.renewLeases(owner, ids, leaseMs),
    });
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    // A claim committed after this point would start deliveries the drain below does not know of; they would
    // be cut off at exit and wait for their lease to run out (and could go out twice).
    await this.loop.stopPolling();
    const drained = Promise.allSettled([...this.inFlight.values()]);
    const { drainMs, recordAfterCutOffMs } = shutdownWaits(this.config.SHUTDOWN_TIMEOUT_MS);
    if (!(await settlesWithin(drained, drainMs))) {
      // A server still holding an exchange (stalling, or trickling a reply) would keep the email under this
      // process's lease until it runs out. Cut off, the attempt is recorded as a timeout and the email handed back.
      this.transport.abort();
      await settlesWithin(drained, recordAfterCutOffMs);
    }
    this.loop.stopRenewing();
    this.transport.close();
  }

  /** Claims as many due emails as there are free slots, and starts their deliveries. */
  private async claim(owner: string): Promise<boolean | undefined> {
    const free = this.config.DELIVERY_CONCURRENCY - this.inFlight.size;
    if (free <= 0) return undefined;
    let due = new Map<string, DueRecipient[]>();
    const claimed = await this.repository.claimDue(owner, this.config.DELIVERY_LEASE_MS, free, [...this.inFlight.keys()], async (manager, emails) => {
      // A scheduled email that has come due is now queued: that is a status change, so it has its event.
      const queued = emails.filter((email) => email.previousStatus === 'scheduled').map((email) => deliveryEvent('email.queued', email, {}));
      await appendEvents(manager, 'emails', queued);
      // Read for the whole claim in one query, inside the claim: should the read fail (a database blip), the
      // claim rolls back with it and the emails are due again at once, not only when their lease runs out.
      due = await this.repository.dueRecipients(manager, emails);
    });
    for (const email of claimed) this.start(email, due.get(email.id) ?? [], owner);
    return claimed.length === free;
  }

  private start(email: ClaimedEmail, due: DueRecipient[], owner: string): void {
    const work = this.delivery
      .deliver(email, due, owner)
      .catch((error: Error) => {
        // The lease is left to expire, so a persistent fault is retried at lease pace rather than in a hot loop.
        this.logger.error({ emailId: email.id, err: error.message }, 'delivery attempt failed unexpectedly');
      })
      .finally(() => {
        this.inFlight.delete(email.id);
        this.loop.wakeIfIdle();
      });
    this.inFlight.set(email.id, work);
  }
}
