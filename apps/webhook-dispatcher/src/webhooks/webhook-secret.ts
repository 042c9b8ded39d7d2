import { randomBytes } from 'node:crypto';
import type { SecretBox } from '@mailroom/auth';

/** How long the secret before a rotation keeps signing, so receivers can switch without dropping events. */
export const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

/** `whsec_` + 32 CSPRNG bytes in base64url; the whole string is the HMAC key. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/**
 * What GET …/secret answers for a secret whose box does not open: the secret is lost to Mailroom too (deliveries
 * fail unsigned, see dispatcher-fault.ts), so the way out is a new one, never a 500.
 */
export const UNREADABLE_SECRET_MESSAGE =
  "This webhook's signing secret could not be decrypted (ENCRYPTION_KEY was changed and the key that sealed it is not in ENCRYPTION_KEY_PREVIOUS, or it is corrupt); issue a new one with POST /v1/webhooks/{id}/secret/rotate.";

/** The secret in clear, or null when its box does not open (sealed with a key neither ENCRYPTION_KEY nor in ENCRYPTION_KEY_PREVIOUS, or a corrupt box). */
export function openSecret(box: SecretBox, sealed: string, webhookId: string): string | null {
  try {
    return box.decrypt(sealed, webhookId);
  } catch {
    return null;
  }
}
