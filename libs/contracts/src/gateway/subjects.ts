import { AuthFailurePayload } from './auth-failure';

/**
 * Broadcasts between gateway replicas over core NATS, without a queue group:
 * every replica hears every other's. Renaming one is a migration: replicas of
 * the old and the new name stop sharing during a rolling deploy.
 */
export const GatewayEvents = {
  /** A replica answered 401 to a key sent from a client address (AUTH_FAILURE_LIMIT). */
  authenticationFailed: 'authentication.failed',
} as const;

export interface GatewayEventPayloads {
  [GatewayEvents.authenticationFailed]: AuthFailurePayload;
}
