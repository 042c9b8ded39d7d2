import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { encryptionKeyFromConfig, SecretBoxConfig } from './secret-box';

export type TrackingKind = 'open' | 'click';

export interface TrackingClaim {
  emailId: string;
  kind: TrackingKind;
  /** click tokens: the original link. */
  url?: string;
  /**
   * The tracking host the message put the token under (canonicalTrackingHost):
   * the gateway honours it only on that host, so a link one sender signed by
   * mailing themselves cannot redirect under another customer's tracking
   * domain. Absent from tokens minted before hosts were bound, which are
   * honoured on any host so that mail already delivered keeps working.
   */
  host?: string;
}

const SIGNATURE_BYTES = 16;

/**
 * The longest token the gateway routes (its maxParamLength). A click token
 * carries its link, so a link of more than about 2,900 characters would make
 * one longer; such a link is left as it is rather than rewritten to a 404.
 */
export const TRACKING_TOKEN_MAX_LENGTH = 4096;

/**
 * Signed tokens for the open pixel and rewritten links. The claim travels in
 * the token (so a click redirects without a lookup), and an HMAC-SHA256 over
 * it, keyed from ENCRYPTION_KEY through HKDF, means a token cannot be forged
 * or altered — the redirector never sends anyone to a URL it did not sign.
 */
export class TrackingTokens {
  private readonly key: Buffer;
  /**
   * Derived from ENCRYPTION_KEY_PREVIOUS: they verify, never sign, so links in mail sent before ENCRYPTION_KEY
   * changed keep working while the previous key stays configured.
   */
  private readonly previousKeys: readonly Buffer[];

  constructor(base64Key: string, previousBase64Keys: readonly string[] = []) {
    this.key = tokenKey(base64Key);
    this.previousKeys = previousBase64Keys.map(tokenKey);
  }

  sign(claim: TrackingClaim): string {
    const fields = [claim.emailId, claim.kind === 'open' ? 'o' : 'c', claim.url ?? null];
    // A fourth field, so a gateway of the version before, which reads three, still honours the token during an upgrade.
    if (claim.host !== undefined) fields.push(claim.host);
    const body = Buffer.from(JSON.stringify(fields)).toString('base64url');
    return `${body}.${signatureOf(this.key, body).toString('base64url')}`;
  }

  /** The claim, or null for anything that was not signed by us exactly as it is. */
  verify(token: string): TrackingClaim | null {
    const [body, signature, extra] = token.split('.');
    if (!body || !signature || extra !== undefined) return null;
    const given = Buffer.from(signature, 'base64url');
    const signedByUs = [this.key, ...this.previousKeys].some((key) => {
      const expected = signatureOf(key, body);
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
    if (!signedByUs) return null;
    try {
      const [emailId, kind, url, host] = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as [string, string, string | null, string?];
      if (typeof emailId !== 'string' || (kind !== 'o' && kind !== 'c') || (host !== undefined && typeof host !== 'string')) return null;
      const claim: TrackingClaim = kind === 'o' ? { emailId, kind: 'open' } : { emailId, kind: 'click', url: url ?? undefined };
      return host === undefined ? claim : Object.assign(claim, { host });
    } catch {
      return null;
    }
  }

}

function tokenKey(base64Key: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(base64Key, 'base64'), Buffer.alloc(0), 'mailroom tracking tokens v1', 32));
}

function signatureOf(key: Buffer, body: string): Buffer {
  return createHmac('sha256', key).update(body).digest().subarray(0, SIGNATURE_BYTES);
}

/** Tokens keyed from ENCRYPTION_KEY (and verified with ENCRYPTION_KEY_PREVIOUS too); the public development key outside production, as for the secret box. */
export function trackingTokensFromConfig(config: SecretBoxConfig, warn: (message: string) => void = () => undefined): TrackingTokens {
  // The development key is in this repository: anyone can sign a click token that redirects through this host to any URL.
  const unsetWarning =
    'ENCRYPTION_KEY is unset: tracking links are signed with the PUBLIC development key, so anyone can forge one. Never run like this with real mail.';
  return new TrackingTokens(encryptionKeyFromConfig(config, warn, unsetWarning), config.ENCRYPTION_KEY_PREVIOUS ?? []);
}
