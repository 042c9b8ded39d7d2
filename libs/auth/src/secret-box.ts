import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * The development key used when ENCRYPTION_KEY is unset outside production.
 * It is public (it is in this file), so anything it encrypts is readable by
 * anyone: production refuses to start without ENCRYPTION_KEY.
 */
export const DEVELOPMENT_ENCRYPTION_KEY = Buffer.from('mailroom-development-only-key!!!', 'utf8').toString('base64');

const VERSION = 'v1';
const IV_BYTES = 12; // NIST SP 800-38D: 96-bit IVs for GCM
const TAG_BYTES = 16;

/**
 * AES-256-GCM for secrets at rest (DKIM private keys, webhook secrets).
 * Output: `v1.<iv>.<tag>.<ciphertext>` in base64url, so the format can change
 * later without guessing. `context` (e.g. the row id) is bound as associated
 * data, so a ciphertext copied onto another row does not decrypt.
 */
export class SecretBox {
  private readonly key: Buffer;
  /**
   * Names the key without giving it away (32 bits of HKDF output, a separate derivation from the
   * tracking-token key): two apps that show different ids run with different ENCRYPTION_KEYs.
   */
  readonly keyId: string;

  constructor(base64Key: string) {
    this.key = Buffer.from(base64Key, 'base64');
    if (this.key.length !== 32) throw new Error('SecretBox needs a 32-byte key (base64)');
    this.keyId = Buffer.from(hkdfSync('sha256', this.key, Buffer.alloc(0), 'mailroom key id v1', 4)).toString('hex');
  }

  encrypt(plaintext: string, context = ''): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
  }

  /** Throws when the box was sealed with another key or context, or was tampered with. */
  decrypt(sealed: string, context = ''): string {
    const [version, iv, tag, ciphertext, extra] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || ciphertext === undefined || extra !== undefined) throw new Error('SecretBox: not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }
}

export interface SecretBoxConfig {
  NODE_ENV: 'development' | 'test' | 'production';
  ENCRYPTION_KEY: string | null;
}

/**
 * ENCRYPTION_KEY, required in production; elsewhere the public development
 * key, after `warn` has been given `unsetWarning` (what that key exposes).
 */
export function encryptionKeyFromConfig(config: SecretBoxConfig, warn: (message: string) => void, unsetWarning: string): string {
  if (config.ENCRYPTION_KEY) return config.ENCRYPTION_KEY;
  if (config.NODE_ENV === 'production') {
    throw new Error('ENCRYPTION_KEY is required in production (base64 of 32 random bytes: openssl rand -base64 32)');
  }
  warn(unsetWarning);
  return DEVELOPMENT_ENCRYPTION_KEY;
}

/** The box for this process: ENCRYPTION_KEY, required in production; the public development key elsewhere. */
export function secretBoxFromConfig(config: SecretBoxConfig, warn: (message: string) => void = () => undefined): SecretBox {
  return new SecretBox(
    encryptionKeyFromConfig(config, warn, 'ENCRYPTION_KEY is unset: secrets at rest use the PUBLIC development key. Never run like this with real data.'),
  );
}
