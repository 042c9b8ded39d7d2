import { isIP } from 'node:net';
import { isPlainObject } from '../validation/is-plain-object';
import { parseJsonBytes } from '../validation/parse-json-bytes';

/** One failed authentication that a gateway replica counted. */
export interface AuthFailurePayload {
  /** The client address as the replica saw it (X-Forwarded-For from a trusted proxy), not yet reduced to its /64. */
  address: string;
  /** When the replica counted it (epoch ms), so a message that arrives after its window ended can be told apart. */
  failedAtMs: number;
}

export function encodeAuthFailure(payload: AuthFailurePayload): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({ address: payload.address, failedAtMs: payload.failedAtMs }));
}

/**
 * The failure in a message, or null when it is not one. Anything on NATS can
 * publish on the subject: a message that is not JSON, lacks a field, or
 * names something that is not an IP address is ignored rather than counted.
 */
export function decodeAuthFailure(data: Uint8Array): AuthFailurePayload | null {
  const parsed = parseJsonBytes(data);
  if (!isPlainObject(parsed)) return null;
  const { address, failedAtMs } = parsed;
  if (typeof address !== 'string' || isIP(address) === 0) return null;
  if (typeof failedAtMs !== 'number' || !Number.isFinite(failedAtMs)) return null;
  return { address, failedAtMs };
}
