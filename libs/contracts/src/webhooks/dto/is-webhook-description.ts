import { IsCharactersBetween } from '../../validation/length-rules';
import { IsNotBlank } from '../../validation/validators';

export const WEBHOOK_DESCRIPTION_MAX_LENGTH = 500;

/**
 * A webhook's description, when one is given: 1 to 500 characters, at least one
 * of which shows. An empty or blank one (spaces, zero-width characters) was
 * stored and answered as if it said something; null (PATCH) clears it instead.
 */
export function IsWebhookDescription() {
  // Bottom-up, as a stack written above the field would apply: the length rule answers first, as MaxLength did.
  const rules = [IsNotBlank(), IsCharactersBetween(1, WEBHOOK_DESCRIPTION_MAX_LENGTH)];
  return (target: object, propertyName: string) => rules.forEach((rule) => rule(target, propertyName));
}
