import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures, shared by the dispatcher (signing) and receivers
 * (verifying). Plain node:crypto, no Nest, so an SDK can ship this file as is.
 *
 * Header: `service-signature: t=<unix seconds>,v1=<hex>[,v1=<hex>…]`, where
 * each v1 is HMAC-SHA256 keyed with a secret (the whole `whsec_…` string, as
 * UTF-8) over `<t>.<raw body>`. During a secret rotation there is one v1 per
 * valid secret; a receiver accepts the request when any of them matches.
 */
export const WEBHOOK_SIGNATURE_HEADER = 'service-signature';
export const WEBHOOK_EVENT_ID_HEADER = 'service-event-id';
/** The event's kind (`email.delivered`), the body's `type`, for routing before parsing; not signed, so the body's is the one to trust. */
export const WEBHOOK_EVENT_TYPE_HEADER = 'service-event-type';

export interface VerifyWebhookOptions {
  /** Maximum age (and clock skew) of the timestamp; default 300 s. */
  toleranceSeconds?: number;
  /** The current time in unix seconds; for tests. */
  now?: number;
}

const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * The tolerance asked for, or the default when it is no number: NaN (Number() of an unset variable) compares
 * false with everything, so the age check would have passed every timestamp, an hour-old replay included.
 */
function toleranceOf(options: VerifyWebhookOptions): number {
  const asked = options.toleranceSeconds;
  return typeof asked === 'number' && !Number.isNaN(asked) ? asked : DEFAULT_TOLERANCE_SECONDS;
}

function hmacHex(secret: string, timestamp: number, rawBody: string | Uint8Array): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
}

/** The header value for a body, signed with every secret given (current first). */
export function signWebhookPayload(rawBody: string | Buffer, secrets: readonly string[], timestamp = Math.floor(Date.now() / 1000)): string {
  return [`t=${timestamp}`, ...secrets.map((secret) => `v1=${hmacHex(secret, timestamp, rawBody)}`)].join(',');
}

/**
 * True when `header` carries a v1 signature of exactly `rawBody` made with
 * `secret`, and its timestamp is within the tolerance. Pass the raw bytes as
 * received: a body parsed and serialized again no longer matches.
 */
export function verifyWebhookSignature(
  rawBody: string | Buffer | Uint8Array | ArrayBuffer,
  header: string | string[] | undefined | null,
  secret: string,
  options: VerifyWebhookOptions = {},
): boolean {
  const value = Array.isArray(header) ? header.join(',') : header;
  // Callers in plain JavaScript pass whatever their framework gives them; anything but text is no signature, and
  // anything but the raw bytes no body (express.raw() leaves {} for another content type, express.json() an object).
  if (typeof value !== 'string' || !value || !secret) return false;
  // An ArrayBuffer is the raw body as the Fetch API reads it (await request.arrayBuffer()): refused, every delivery failed to verify.
  const body = rawBody instanceof ArrayBuffer ? Buffer.from(rawBody) : rawBody;
  if (typeof body !== 'string' && !ArrayBuffer.isView(body)) return false;
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of value.split(',')) {
    const [key, ...rest] = part.trim().split('=');
    const item = rest.join('=');
    if (key === 't' && /^\d{1,12}$/.test(item)) timestamp = Number(item);
    else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(item)) signatures.push(item.toLowerCase());
  }
  if (timestamp === undefined || !signatures.length) return false;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > toleranceOf(options)) return false;
  const expected = Buffer.from(hmacHex(secret, timestamp, body), 'hex');
  // Compare every candidate, in constant time, without stopping at the first match.
  let matched = false;
  for (const signature of signatures) {
    if (timingSafeEqual(expected, Buffer.from(signature, 'hex'))) matched = true;
  }
  return matched;
}
