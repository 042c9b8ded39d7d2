import type { AttemptRecord, ClaimedDelivery } from '../../src/dispatch/dispatch.repository';

/** A 500 from the endpoint, as the attempter would record it for worker-1 with a retry left. */
export function failedAttempt(delivery: ClaimedDelivery): AttemptRecord {
  return {
    owner: 'worker-1',
    delivery,
    startedAt: new Date(),
    responseCode: 500,
    durationMs: 12,
    error: 'HTTP 500',
    success: false,
    gone: false,
    affectsWebhookHealth: true,
    nextAttemptAt: new Date(Date.now() + 60_000),
  };
}
