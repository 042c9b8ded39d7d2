import { AuthFailurePayload } from './auth-failure';
import { ConsumptionReport } from './consumption-report';

/**
 * Broadcasts between gateway replicas over core NATS, without a queue group:
 * every replica hears every other's. Renaming one is a migration: replicas of
 * the old and the new name stop sharing during a rolling deploy.
 */
export const GatewayEvents = {
  /** A replica answered 401 to a key sent from a client address (AUTH_FAILURE_LIMIT). */
  authenticationFailed: 'authentication.failed',
  /** A replica's requests let through per key since its last report, every RATE_LIMIT_SYNC_MS (per-key rate limit). */
  rateLimitConsumed: 'gateway.rate-limit.consumed',
} as const;

export interface GatewayEventPayloads {
  [GatewayEvents.authenticationFailed]: AuthFailurePayload;
  [GatewayEvents.rateLimitConsumed]: ConsumptionReport;
}
