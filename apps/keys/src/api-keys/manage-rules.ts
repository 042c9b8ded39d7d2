import type { VerifiedApiKey } from '@mailroom/contracts';
import { DomainError, ErrorCode } from '@mailroom/errors';
import { assertWithinCaller } from './grant-rules';

/**
 * A key may change or delete only keys it could have created: otherwise a
 * key with api-keys:* but nothing else (or one restricted to a domain, an
 * address range, an expiry) could disable the root key, or rewrite the
 * restrictions of a key that reaches further than itself.
 */
export function assertManageable(caller: VerifiedApiKey, target: VerifiedApiKey): void {
  try {
    assertWithinCaller(caller, target);
  } catch (error) {
    if (!(error instanceof DomainError) || error.code !== ErrorCode.Forbidden) throw error;
    throw DomainError.forbidden(`This API key cannot change or delete ${target.keyId}, which holds more than it does. ${error.message}`);
  }
}
