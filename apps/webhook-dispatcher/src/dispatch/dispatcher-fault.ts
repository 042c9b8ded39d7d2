import type { HttpResult } from './attempt-outcome';

/**
 * A webhook's signing secret (the current one, or the previous one during a
 * rotation) does not decrypt: ENCRYPTION_KEY was changed and the key that
 * sealed it is not in ENCRYPTION_KEY_PREVIOUS, or the stored box is corrupt. Its message is what the attempt
 * log shows, so it names no secret; the cause says what the cipher said.
 */
export class UndecryptableSecretError extends Error {
  constructor(cause: unknown) {
    super('signing secret could not be decrypted', { cause });
  }
}

/** What the attempt log shows for any other fault of the dispatcher's own: the error's text could say anything, so it is logged, not stored. */
export const INTERNAL_FAULT_MESSAGE = 'the dispatcher could not make the request (internal error; see its logs)';

/**
 * A fault of the dispatcher's own while it prepared or made a request, as an
 * attempt result: nothing reached the receiver. It is recorded like any
 * failed attempt and follows the retry schedule, so a fault that persists
 * ends the delivery as failed instead of retrying it at lease pace for ever;
 * classifyAttempt keeps it off the webhook's health.
 */
export function dispatcherFaultResult(error: unknown, durationMs: number): HttpResult {
  const message = error instanceof UndecryptableSecretError ? error.message : INTERNAL_FAULT_MESSAGE;
  return { statusCode: null, durationMs, error: message, failure: 'dispatcher' };
}
