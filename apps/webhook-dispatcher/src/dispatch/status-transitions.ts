import type { WebhookStatus } from '@mailroom/contracts';

/** The delivery-health columns of a webhook. */
export interface WebhookHealth {
  status: WebhookStatus;
  failureCount: number;
  failedDeliveriesStreak: number;
  firstFailureAt: Date | null;
  disabledReason: string | null;
}

export interface DisablePolicy {
  /** Disabled when failures have gone on this long without a success (default 5 days). */
  disableAfterMs: number;
  /** …or when this many deliveries in a row failed for good (default 50). */
  disableAfterFailedDeliveries: number;
}

/**
 * Any success makes a webhook healthy again: active, failureCount 0. A webhook
 * someone disabled stays disabled (an attempt already in flight when it was
 * disabled may still succeed); only PATCH status=active re-enables it.
 */
export function afterSuccess(health: WebhookHealth): WebhookHealth {
  return {
    status: health.status === 'disabled' ? 'disabled' : 'active',
    failureCount: 0,
    failedDeliveriesStreak: 0,
    firstFailureAt: null,
    disabledReason: health.status === 'disabled' ? health.disabledReason : null,
  };
}

/**
 * A failed attempt makes a webhook `failing`; it becomes `disabled` at once on
 * 410 Gone, or when the failures have lasted the window, or when too many
 * deliveries in a row have failed for good.
 */
export function afterFailure(
  health: WebhookHealth,
  attempt: { at: Date; gone: boolean; deliveryExhausted: boolean },
  policy: DisablePolicy,
): WebhookHealth {
  const firstFailureAt = health.firstFailureAt ?? attempt.at;
  const next: WebhookHealth = {
    status: health.status === 'disabled' ? 'disabled' : 'failing',
    failureCount: health.failureCount + 1,
    failedDeliveriesStreak: health.failedDeliveriesStreak + (attempt.deliveryExhausted ? 1 : 0),
    firstFailureAt,
    disabledReason: health.disabledReason,
  };
  if (next.status === 'disabled') return next;
  const reason = attempt.gone
    ? 'the endpoint answered 410 Gone'
    : attempt.at.getTime() - firstFailureAt.getTime() >= policy.disableAfterMs
      ? `deliveries failed without a success for ${Math.round(policy.disableAfterMs / 3_600_000)} h`
      : next.failedDeliveriesStreak >= policy.disableAfterFailedDeliveries
        ? `${next.failedDeliveriesStreak} deliveries in a row failed`
        : null;
  return reason ? Object.assign({}, next, { status: 'disabled', disabledReason: reason } satisfies Partial<WebhookHealth>) : next;
}

/** PATCH status: `active` re-enables and forgets past failures; `disabled` stops deliveries. */
export function afterManualStatus(health: WebhookHealth, status: 'active' | 'disabled'): WebhookHealth {
  if (status === 'active') return { status: 'active', failureCount: 0, failedDeliveriesStreak: 0, firstFailureAt: null, disabledReason: null };
  return Object.assign({}, health, { status: 'disabled', disabledReason: 'disabled through the API' } satisfies Partial<WebhookHealth>);
}
