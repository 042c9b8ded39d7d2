import type { VerifiedApiKey } from '@mailroom/contracts';

/** What verify finds for a hash: the key, REVOKED_KEY for a key that was deleted, or null for one never issued. */
export const REVOKED_KEY = 'revoked';
export type KeyLookup = VerifiedApiKey | typeof REVOKED_KEY | null;

/** Looks a key up by its hash; the gateway's implementation caches and asks the keys service on a miss. */
export interface ApiKeyVerifier {
  verify(keyHash: string): Promise<KeyLookup>;
  /** Notes that a key was used; flushed in batches so lastUsedAt costs no write per request. */
  recordUse(keyId: string): void;
}

export const API_KEY_VERIFIER = Symbol('ApiKeyVerifier');

export interface AuthOptions {
  testModeEnabled: boolean;
}

export const AUTH_OPTIONS = Symbol('AuthOptions');
