/**
 * The Idempotency-Key contract the creating routes share (POST /v1/emails, /v1/emails/batch, /v1/webhooks;
 * README "Sending"): the key's limits, and what the gateway passes to the service that stores it.
 */
export const IDEMPOTENCY_LIMITS = {
  keyMaxLength: 256,
  /** How long a key replays its first answer. */
  windowHours: 24,
} as const;

/** Printable ASCII without spaces: a key travels in an HTTP header, and a space separates it from the API key id in the lock's hash. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]+$/;

/** Sent by the gateway with an Idempotency-Key header; scoped to ctx.keyId. */
export interface IdempotencyInput {
  key: string;
  /** SHA-256 of the route and canonical JSON body. */
  requestHash: string;
}
