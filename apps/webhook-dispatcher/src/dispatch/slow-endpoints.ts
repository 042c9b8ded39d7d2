import { slowEndpointsGauge } from './slow-endpoint-metrics';

/**
 * A request open this share of WEBHOOK_TIMEOUT_MS makes its endpoint slow. Relative to the timeout, so a setting
 * made for endpoints known to think for a while does not throttle them; at the default 15 s it is 3.75 s, long
 * past what a receiver that queues its work answers in.
 */
export const SLOW_AFTER_TIMEOUT_SHARE = 0.25;

/**
 * A slow mark is forgotten this long after it was last confirmed, once the endpoint holds nothing here: enough
 * to span the retry schedule's early steps, so a black hole is not given every one of its slots again on each
 * retry, while marks of deleted or long quiet webhooks do not pile up.
 */
export const FORGET_SLOW_AFTER_MS = 15 * 60_000;

/**
 * The endpoints (webhooks) this dispatcher has seen answer slowly or not at
 * all. A slow endpoint gets one request at a time, from a share of the slots
 * (DeliveryPool); it is fast again as soon as one answer comes back quickly.
 */
export class SlowEndpoints {
  private readonly confirmedAt = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  has(webhookId: string): boolean {
    return this.confirmedAt.has(webhookId);
  }

  /** Marks (or confirms) the endpoint slow; true when it was not slow before. */
  mark(webhookId: string): boolean {
    const turned = !this.confirmedAt.has(webhookId);
    this.confirmedAt.set(webhookId, this.now());
    slowEndpointsGauge.set(this.confirmedAt.size);
    return turned;
  }

  /** An answer came back quickly: the endpoint gets its full share of requests again. */
  clear(webhookId: string): void {
    this.confirmedAt.delete(webhookId);
    slowEndpointsGauge.set(this.confirmedAt.size);
  }

  /** The slow endpoints, forgetting first the marks gone stale of those `held` says hold nothing. */
  current(held: Record<string, number>): string[] {
    const staleBefore = this.now() - FORGET_SLOW_AFTER_MS;
    for (const [webhookId, at] of this.confirmedAt) {
      if (at < staleBefore && !held[webhookId]) this.confirmedAt.delete(webhookId);
    }
    slowEndpointsGauge.set(this.confirmedAt.size);
    return [...this.confirmedAt.keys()];
  }
}
