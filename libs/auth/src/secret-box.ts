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

/** What a sealed secret held, and which key opened it. */
export interface OpenedSecret {
  plaintext: string;
  /** The id of the key that opened it (see SecretBox.keyId). */
  keyId: string;
  /** A key of ENCRYPTION_KEY_PREVIOUS opened it: its owner should seal it again under the current key. */
  sealedWithPrevious: boolean;
}

/** One 32-byte key and the id that names it. */
interface NamedKey {
  key: Buffer;
  id: string;
}

function namedKey(base64Key: string): NamedKey {
  const key = Buffer.from(base64Key, 'base64');
  if (key.length !== 32) throw new Error('SecretBox needs a 32-byte key (base64)');
  return { key, id: Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'mailroom key id v1', 4)).toString('hex') };
}

/**
 * AES-256-GCM for secrets at rest (DKIM private keys, webhook secrets).
 * Output: `v1.<iv>.<tag>.<ciphertext>` in base64url, so the format can change
 * later without guessing. `context` (e.g. the row id) is bound as associated
 * data, so a ciphertext copied onto another row does not decrypt.
 *
 * It seals with the current key only and opens with the current key, then
 * each previous one (ENCRYPTION_KEY_PREVIOUS), so ENCRYPTION_KEY can change
 * while what the old key sealed is still read and sealed again. Trying keys
 * in turn is safe: GCM's tag rejects a wrong key as surely as a tampered box.
 */
export class SecretBox {
  private readonly current: NamedKey;
  private readonly previous: readonly NamedKey[];
  /**
   * Names the key without giving it away (32 bits of HKDF output, a separate derivation from the
   * tracking-token key): two apps that show different ids run with different ENCRYPTION_KEYs.
   */
  readonly keyId: string;
  /** The ids of the previous keys, in the order they are tried. */
  readonly previousKeyIds: readonly string[];

  constructor(base64Key: string, previousBase64Keys: readonly string[] = []) {
    this.current = namedKey(base64Key);
    this.previous = previousBase64Keys.map(namedKey);
    this.keyId = this.current.id;
    this.previousKeyIds = this.previous.map((named) => named.id);
  }

  encrypt(plaintext: string, context = ''): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
  }

  /** Throws when no key of the box opens it (sealed with another key or context, or tampered with). */
  decrypt(sealed: string, context = ''): string {
    return this.open(sealed, context).plaintext;
  }

  /** As decrypt, and says which key opened it. */
  open(sealed: string, context = ''): OpenedSecret {
    const [version, iv, tag, ciphertext, extra] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || ciphertext === undefined || extra !== undefined) throw new Error('SecretBox: not a sealed secret');
    const parts = { iv: Buffer.from(iv, 'base64url'), tag: Buffer.from(tag, 'base64url'), ciphertext: Buffer.from(ciphertext, 'base64url') };
    let failure: unknown;
    for (const named of [this.current, ...this.previous]) {
      try {
        return { plaintext: openWith(named.key, parts, context), keyId: named.id, sealedWithPrevious: named !== this.current };
      } catch (error) {
        failure ??= error;
      }
    }
    throw failure;
  }
}

function openWith(key: Buffer, { iv, tag, ciphertext }: { iv: Buffer; tag: Buffer; ciphertext: Buffer }, context: string): string {
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
}

export interface SecretBoxConfig {
  NODE_ENV: 'development' | 'test' | 'production';
  ENCRYPTION_KEY: string | null;
  /** Keys ENCRYPTION_KEY replaced: they only open. Absent in tests and tools that never rotated. */
  ENCRYPTION_KEY_PREVIOUS?: readonly string[];
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

/**
 * The box for this process: ENCRYPTION_KEY, required in production; the public development key elsewhere. It also
 * opens what the keys of ENCRYPTION_KEY_PREVIOUS sealed.
 */
export function secretBoxFromConfig(config: SecretBoxConfig, warn: (message: string) => void = () => undefined): SecretBox {
  return new SecretBox(
    encryptionKeyFromConfig(config, warn, 'ENCRYPTION_KEY is unset: secrets at rest use the PUBLIC development key. Never run like this with real data.'),
    config.ENCRYPTION_KEY_PREVIOUS ?? [],
  );
}

/** For a boot line after the current key's id: the previous keys' ids, or nothing when there are none. */
export function previousKeyIdsNote(box: SecretBox): string {
  return box.previousKeyIds.length ? `; ENCRYPTION_KEY_PREVIOUS ids ${box.previousKeyIds.join(', ')} open what they sealed` : '';
}
