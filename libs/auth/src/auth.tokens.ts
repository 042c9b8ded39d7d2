import type { VerifiedApiKey } from '@mailroom/contracts';

/** Looks a key up by its hash; the gateway's implementation caches and asks the keys service on a miss. */
export interface ApiKeyVerifier {
  verify(keyHash: string): Promise<VerifiedApiKey | null>;
  /** Notes that a key was used; flushed in batches so lastUsedAt costs no write per request. */
  recordUse(keyId: string): void;
}

export const API_KEY_VERIFIER = Symbol('ApiKeyVerifier');

export interface AuthOptions {
  testModeEnabled: boolean;
}

export const AUTH_OPTIONS = Symbol('AuthOptions');
