import { ByteBudget } from '@mailroom/outbox';
import type { ClaimedDelivery, PayloadBytesClaim, SlowEndpointsClaim } from './dispatch.repository';
import { SlowEndpoints } from './slow-endpoints';

export interface PoolLimits {
  /** Requests open at once, across all endpoints (WEBHOOK_CONCURRENCY). */
  concurrency: number;
  /** Requests open at once to one webhook (WEBHOOK_CONCURRENCY_PER_ENDPOINT). */
  perEndpoint: number;
  /** Payload bytes held at once, from claim until the result is written (WEBHOOK_DELIVERY_BUFFER_BYTES). */
  bufferBytes: number;
}

/**
 * Claimed deliveries an endpoint may hold per request slot: one batch waits
 * while the other is sent, so a busy endpoint's next request starts the
 * moment a slot frees instead of after a claim round trip, and claims come
 * once per batch rather than once per delivery. A slow endpoint holds one
 * delivery at a time (DeliveryPool.turnSlow).
 */
export const PREFETCH_FACTOR = 2;

type State = 'queued' | 'sending' | 'recording';

/** What the next claim may take (DispatchRepository.claimDue); nothing when `limit` is 0. */
export interface ClaimLimits {
  limit: number;
  /** Deliveries one endpoint that is not slow may hold, queued and sending. */
  perEndpoint: number;
  /** webhook id → deliveries queued or sending to it. */
  held: Record<string, number>;
  slow: SlowEndpointsClaim;
  bytes: PayloadBytesClaim;
}

/**
 * The deliveries one dispatcher has claimed, from claim until their result is
 * written: queued (waiting for a slot), sending (HTTP request open), recording
 * (result being written; no slot, but still leased). Decides which queued
 * deliveries may be sent now, oldest claim first, within both limits.
 *
 * Slow endpoints (SlowEndpoints) get one request at a time, and all of them
 * together at most `slowShare` requests and held deliveries. Their requests
 * count against the concurrency only up to that share: requests already open
 * when an endpoint turned slow run until they end (the timeout at most), and
 * the other endpoints keep the rest of the slots meanwhile, up to `maxOpen`.
 *
 * Every delivery held, recording ones too, keeps its payload in memory (parsed,
 * and serialized again for the request), up to NATS max_payload each: claims
 * stay within `bufferBytes` of payloads, or take one delivery alone, however
 * large, when the pool holds none.
 */
export class DeliveryPool {
  private readonly entries = new Map<string, { delivery: ClaimedDelivery; state: State }>();
  private readonly bytes: ByteBudget<ClaimedDelivery>;
  /** Half the slots (at least one): however many endpoints stall, the others always have the rest. */
  readonly slowShare: number;
  /**
   * Requests open at most, in all (about 1.5 × concurrency): what stalled requests beyond the slow share free
   * for the others, once. Without it, endpoints stalling one after another within a timeout would each free
   * another half, and open sockets would grow with them.
   */
  readonly maxOpen: number;

  constructor(
    private readonly limits: PoolLimits,
    private readonly slow = new SlowEndpoints(),
  ) {
    this.slowShare = Math.max(1, Math.floor(limits.concurrency / 2));
    this.maxOpen = 2 * limits.concurrency - this.slowShare;
    this.bytes = new ByteBudget(limits.bufferBytes, (delivery: ClaimedDelivery) => delivery.payloadBytes);
  }

  /** The most payload bytes held at once: at most bufferBytes, or one delivery when a single one is larger. */
  get peakBytes(): number {
    return this.bytes.peak;
  }

  /**
   * How many more a claim may take: none while results pile up unwritten (the
   * database is the bottleneck then) or the payloads held fill bufferBytes.
   * Slow endpoints' deliveries count only up to their share, which they never
   * claim beyond.
   */
  claimLimits(): ClaimLimits {
    const held = this.heldByEndpoint();
    const slowIds = this.slow.current(held);
    let heldBySlow = 0;
    for (const webhookId of slowIds) heldBySlow += held[webhookId] ?? 0;
    const heldByOthers = Object.values(held).reduce((sum, count) => sum + count, 0) - heldBySlow;
    const recording = this.entries.size - heldBySlow - heldByOthers;
    const room = this.limits.concurrency * PREFETCH_FACTOR - heldByOthers - Math.min(heldBySlow, this.slowShare);
    const bytes = { room: Math.max(0, this.bytes.limit - this.bytes.held), atLeastOne: this.entries.size === 0 };
    const full = bytes.room === 0 && !bytes.atLeastOne;
    return {
      limit: recording >= this.limits.concurrency || full ? 0 : Math.max(0, room),
      perEndpoint: this.limits.perEndpoint * PREFETCH_FACTOR,
      held,
      slow: { ids: slowIds, room: Math.max(0, this.slowShare - heldBySlow) },
      bytes,
    };
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

  /**
   * The endpoint answers slowly or not at all: from now on it gets one request
   * at a time, and its queued deliveries are taken out, to be handed back
   * unsent (answered here) rather than wait behind its open requests.
   */
  turnSlow(webhookId: string): string[] {
    this.slow.mark(webhookId);
    return this.takeQueued((delivery) => delivery.webhookId === webhookId);
  }

  /**
   * Removes and returns the queued deliveries of slow endpoints that have a
   * request open: a claim already running when its endpoint turned slow
   * brings them after turnSlow handed the others back, and they would wait
   * out the open requests (the timeout at most) under a renewed lease. A
   * claim made since asks one for a slow endpoint only when it holds none.
   */
  takeQueuedBehindSlow(): string[] {
    const open = new Set<string>();
    for (const { delivery, state } of this.entries.values()) if (state === 'sending') open.add(delivery.webhookId);
    return this.takeQueued((delivery) => this.slow.has(delivery.webhookId) && open.has(delivery.webhookId));
  }

  isSlow(webhookId: string): boolean {
    return this.slow.has(webhookId);
  }

  /** The endpoint answered quickly: its full per-endpoint limit again. */
  turnFast(webhookId: string): void {
    this.slow.clear(webhookId);
  }

  /**
   * A delivery already held is kept as it is: a claim hands one back to this
   * same owner when its lease lapsed meanwhile (renewals failing while the
   * database was away), and taking the new copy would queue it to be sent a
   * second time and count its payload bytes twice, the first copy's for good.
   */
  add(delivery: ClaimedDelivery): void {
    if (this.entries.has(delivery.id)) return;
    this.entries.set(delivery.id, { delivery, state: 'queued' });
    this.bytes.take(delivery);
  }

  /** Marks and returns the queued deliveries that may be sent now. */
  takeSendable(): ClaimedDelivery[] {
    const sending: Record<string, number> = {};
    let sendingSlow = 0;
    let sendingOthers = 0;
    for (const { delivery, state } of this.entries.values()) {
      if (state !== 'sending') continue;
      sending[delivery.webhookId] = (sending[delivery.webhookId] ?? 0) + 1;
      if (this.slow.has(delivery.webhookId)) sendingSlow += 1;
      else sendingOthers += 1;
    }
    const taken: ClaimedDelivery[] = [];
    for (const entry of this.entries.values()) {
      if (sendingOthers + Math.min(sendingSlow, this.slowShare) >= this.limits.concurrency) break;
      if (sendingOthers + sendingSlow >= this.maxOpen) break;
      const webhookId = entry.delivery.webhookId;
      const endpointSlow = this.slow.has(webhookId);
      if (entry.state !== 'queued' || (sending[webhookId] ?? 0) >= (endpointSlow ? 1 : this.limits.perEndpoint)) continue;
      if (endpointSlow && sendingSlow >= this.slowShare) continue;
      entry.state = 'sending';
      sending[webhookId] = (sending[webhookId] ?? 0) + 1;
      if (endpointSlow) sendingSlow += 1;
      else sendingOthers += 1;
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
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    this.bytes.give(entry.delivery);
  }

  /** Removes and returns the deliveries not yet being sent (shutdown gives their leases back). */
  drainQueued(): string[] {
    return this.takeQueued(() => true);
  }

  /** Removes and returns the ids of the queued deliveries `which` picks: they are no longer this dispatcher's to send. */
  private takeQueued(which: (delivery: ClaimedDelivery) => boolean): string[] {
    const ids = [...this.entries].filter(([, entry]) => entry.state === 'queued' && which(entry.delivery)).map(([id]) => id);
    for (const id of ids) this.remove(id);
    return ids;
  }

  /** Every delivery this dispatcher holds a lease on. */
  ids(): string[] {
    return [...this.entries.keys()];
  }
}
