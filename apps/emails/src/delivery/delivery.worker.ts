import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { MailroomConfig } from '@mailroom/config';
import { appendEvents } from '@mailroom/outbox';
import { MAILROOM_CONFIG, RepeatedFailureLog } from '@mailroom/runtime';
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
 * free slots, and polls again at once while there is more work. Leases are
 * renewed while deliveries run; a crashed process's leases simply expire and
 * any replica takes the emails over.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(DeliveryWorker.name);
  private readonly claimFailures = new RepeatedFailureLog(this.logger, 'claiming due emails');
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly inFlight = new Map<string, Promise<void>>();
  private running = false;
  private polling = false;
  /** The poll under way, if any: shutdown waits for it, so emails it is claiming are drained, not stranded under a lease. */
  private currentPoll: Promise<void> | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private renewTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly repository: DeliveryRepository,
    private readonly delivery: EmailDelivery,
    @Inject(DELIVERY_TRANSPORT) private readonly transport: DeliveryTransport,
    @Inject(MAILROOM_CONFIG) private readonly config: MailroomConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.running = true;
    this.renewTimer = setInterval(() => this.renewLeases(), Math.max(250, Math.floor(this.config.DELIVERY_LEASE_MS / 3)));
    this.schedulePoll(0);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.running = false;
    clearTimeout(this.pollTimer);
    // A claim committed after this point would start deliveries the drain below does not know of; they would
    // be cut off at exit and wait for their lease to run out (and could go out twice).
    await this.currentPoll;
    const drained = Promise.allSettled([...this.inFlight.values()]);
    const { drainMs, recordAfterCutOffMs } = shutdownWaits(this.config.SHUTDOWN_TIMEOUT_MS);
    if (!(await settlesWithin(drained, drainMs))) {
      // A server still holding an exchange (stalling, or trickling a reply) would keep the email under this
      // process's lease until it runs out. Cut off, the attempt is recorded as a timeout and the email handed back.
      this.transport.abort();
      await settlesWithin(drained, recordAfterCutOffMs);
    }
    clearInterval(this.renewTimer);
    this.transport.close();
  }

  private schedulePoll(delayMs: number): void {
    if (!this.running) return;
    clearTimeout(this.pollTimer);
    this.pollTimer = setTimeout(() => {
      this.currentPoll = this.poll();
    }, delayMs);
  }

  private async poll(): Promise<void> {
    if (!this.running || this.polling) return;
    this.polling = true;
    let again = false;
    try {
      const free = this.config.DELIVERY_CONCURRENCY - this.inFlight.size;
      if (free > 0) {
        let due = new Map<string, DueRecipient[]>();
        const claimed = await this.repository.claimDue(this.owner, this.config.DELIVERY_LEASE_MS, free, [...this.inFlight.keys()], async (manager, emails) => {
          // A scheduled email that has come due is now queued: that is a status change, so it has its event.
          const queued = emails.filter((email) => email.previousStatus === 'scheduled').map((email) => deliveryEvent('email.queued', email, {}));
          await appendEvents(manager, 'emails', queued);
          // Read for the whole claim in one query, inside the claim: should the read fail (a database blip), the
          // claim rolls back with it and the emails are due again at once, not only when their lease runs out.
          due = await this.repository.dueRecipients(manager, emails);
        });
        this.claimFailures.succeeded();
        for (const email of claimed) this.start(email, due.get(email.id) ?? []);
        again = claimed.length === free;
      }
    } catch (error) {
      if (this.running) this.claimFailures.failed(error);
    } finally {
      this.polling = false;
      this.schedulePoll(again ? 0 : this.config.DELIVERY_POLL_MS);
    }
  }

  private start(email: ClaimedEmail, due: DueRecipient[]): void {
    const work = this.delivery
      .deliver(email, due, this.owner)
      .catch((error: Error) => {
        // The lease is left to expire, so a persistent fault is retried at lease pace rather than in a hot loop.
        this.logger.error({ emailId: email.id, err: error.message }, 'delivery attempt failed unexpectedly');
      })
      .finally(() => {
        this.inFlight.delete(email.id);
        if (!this.polling) this.schedulePoll(0);
      });
    this.inFlight.set(email.id, work);
  }

  private renewLeases(): void {
    const ids = [...this.inFlight.keys()];
    if (!ids.length) return;
    this.repository.renewLeases(this.owner, ids, this.config.DELIVERY_LEASE_MS).catch((error: Error) => {
      this.logger.warn({ err: error.message }, 'renewing delivery leases failed');
    });
  }
}
