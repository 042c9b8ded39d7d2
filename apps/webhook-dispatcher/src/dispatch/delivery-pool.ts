import type { ClaimedDelivery } from './dispatch.repository';

export interface PoolLimits {
  /** Requests open at once, across all endpoints (WEBHOOK_CONCURRENCY). */
  concurrency: number;
  /** Requests open at once to one webhook (WEBHOOK_CONCURRENCY_PER_ENDPOINT). */
  perEndpoint: number;
}

/**
 * Claimed deliveries an endpoint may hold per request slot: one batch waits
 * while the other is sent, so a busy endpoint's next request starts the
 * moment a slot frees instead of after a claim round trip, and claims come
 * once per batch rather than once per delivery. A slow endpoint still holds
 * only its own small share.
 */
export const PREFETCH_FACTOR = 2;

type State = 'queued' | 'sending' | 'recording';

/**
 * The deliveries one dispatcher has claimed, from claim until their result is
 * written: queued (waiting for a slot), sending (HTTP request open), recording
 * (result being written; no slot, but still leased). Decides which queued
 * deliveries may be sent now, oldest claim first, within both limits.
 */
export class DeliveryPool {
  private readonly entries = new Map<string, { delivery: ClaimedDelivery; state: State }>();

  constructor(private readonly limits: PoolLimits) {}

  /** How many more a claim may take: none while results pile up unwritten (the database is the bottleneck then). */
  claimCapacity(): number {
    let recording = 0;
    for (const entry of this.entries.values()) if (entry.state === 'recording') recording += 1;
    if (recording >= this.limits.concurrency) return 0;
    return Math.max(0, this.limits.concurrency * PREFETCH_FACTOR - (this.entries.size - recording));
  }

  /** The per-endpoint cap a claim applies to `heldByEndpoint()`. */
  get claimPerEndpoint(): number {
    return this.limits.perEndpoint * PREFETCH_FACTOR;
  }

  /** webhook id → deliveries queued or sending to it. */
  heldByEndpoint(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const { delivery, state } of this.entries.values()) {
      if (state !== 'recording') counts[delivery.webhookId] = (counts[delivery.webhookId] ?? 0) + 1;
    }
    return counts;
  }

  /** True when the endpoint has drained to one batch or less: time to claim its next one. */
  runningLow(webhookId: string): boolean {
    return (this.heldByEndpoint()[webhookId] ?? 0) <= this.limits.perEndpoint;
  }

  add(delivery: ClaimedDelivery): void {
    this.entries.set(delivery.id, { delivery, state: 'queued' });
  }

  /** Marks and returns the queued deliveries that may be sent now. */
  takeSendable(): ClaimedDelivery[] {
    const sending: Record<string, number> = {};
    let total = 0;
    for (const { delivery, state } of this.entries.values()) {
      if (state !== 'sending') continue;
      sending[delivery.webhookId] = (sending[delivery.webhookId] ?? 0) + 1;
      total += 1;
    }
    const taken: ClaimedDelivery[] = [];
    for (const entry of this.entries.values()) {
      if (total >= this.limits.concurrency) break;
      const webhookId = entry.delivery.webhookId;
      if (entry.state !== 'queued' || (sending[webhookId] ?? 0) >= this.limits.perEndpoint) continue;
      entry.state = 'sending';
      sending[webhookId] = (sending[webhookId] ?? 0) + 1;
      total += 1;
      taken.push(entry.delivery);
    }
    return taken;
  }

  /** The HTTP exchange is over: the slot is free, the lease stays until the result is written. */
  markSent(id: string): void {
    const entry = this.entries.get(id);
    if (entry) entry.state = 'recording';
  }

  remove(id: string): void {
    this.entries.delete(id);
  }

  /** Removes and returns the deliveries not yet being sent (shutdown gives their leases back). */
  drainQueued(): string[] {
    const ids = [...this.entries].filter(([, entry]) => entry.state === 'queued').map(([id]) => id);
    for (const id of ids) this.entries.delete(id);
    return ids;
  }

  /** Every delivery this dispatcher holds a lease on. */
  ids(): string[] {
    return [...this.entries.keys()];
  }
}
