import { unsupportedAddressForm } from '@mailroom/contracts';
import { DomainError, quotedForMessage } from '@mailroom/errors';

/** The 422 for an address parseEmailAddress refused: why, when it is a valid form Mailroom does not send to. */
export function invalidAddress(field: string, raw: string): DomainError {
  const unsupported = unsupportedAddressForm(raw);
  return DomainError.validation(field, `${quotedForMessage(raw)} ${unsupported ? `is not an address Mailroom sends to: ${unsupported}` : 'is not a valid email address'}`);
}
