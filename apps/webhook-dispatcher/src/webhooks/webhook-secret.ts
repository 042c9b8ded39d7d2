import { randomBytes } from 'node:crypto';

/** How long the secret before a rotation keeps signing, so receivers can switch without dropping events. */
export const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

/** `whsec_` + 32 CSPRNG bytes in base64url; the whole string is the HMAC key. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}
