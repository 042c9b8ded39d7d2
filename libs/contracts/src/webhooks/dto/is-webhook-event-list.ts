import { ArrayMaxSize, IsArray, IsString, MaxLength } from 'class-validator';
import { refusingItems } from '../../validation/validate-dto';

/**
 * Longer than any event kind (the longest, `email.delivery_delayed`, has 22
 * characters): the dispatcher quotes an unknown kind back in its 422, so
 * without a bound a 100 KB name was carried over NATS and echoed whole.
 */
export const WEBHOOK_EVENT_KIND_MAX_LENGTH = 64;

const tooLong = refusingItems((item) => typeof item === 'string' && item.length > WEBHOOK_EVENT_KIND_MAX_LENGTH);

/**
 * A webhook's `events`, in shape only (the dispatcher checks each kind, naming
 * `events[i]`): an array of at most 50 strings, each at most
 * WEBHOOK_EVENT_KIND_MAX_LENGTH characters, a long one named `events[i]` too.
 */
export function IsWebhookEventList() {
  // Applied in the order decorators written top-down would be (bottom first), so the array rule, applied last, is the type complaint.
  const rules = [
    MaxLength(WEBHOOK_EVENT_KIND_MAX_LENGTH, { each: true, context: tooLong, message: `must be at most ${WEBHOOK_EVENT_KIND_MAX_LENGTH} characters` }),
    IsString({ each: true, message: 'must be an array of strings' }),
    ArrayMaxSize(50, { message: 'must list at most 50 event kinds' }),
    IsArray({ message: 'must be an array of event kinds, e.g. ["email.delivered"] or ["*"]' }),
  ];
  return (target: object, propertyName: string) => rules.forEach((rule) => rule(target, propertyName));
}
