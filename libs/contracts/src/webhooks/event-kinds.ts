import { quotedForMessage } from '@mailroom/errors';
import { EVENT_TYPES } from '../events/event-types';

/**
 * The event kinds a webhook can subscribe to: every kind on the stream. `*`
 * subscribes to all of them, including kinds added later.
 */
export const WEBHOOK_EVENT_KINDS = EVENT_TYPES;

export type WebhookEventKind = (typeof WEBHOOK_EVENT_KINDS)[number];

/** Sent only by POST /v1/webhooks/{id}/test, to that one endpoint; never on the event stream. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

const KNOWN = new Set<string>([...WEBHOOK_EVENT_KINDS, '*']);

/** The first problem with an `events` list, naming the item (`events[2]`), or null. */
export function webhookEventsProblem(events: readonly string[]): { field: string; problem: string } | null {
  if (!events.length) return { field: 'events', problem: 'must list at least one event kind, or *' };
  const index = events.findIndex((event) => !KNOWN.has(event));
  if (index === -1) return null;
  return { field: `events[${index}]`, problem: `${quotedForMessage(events[index])} is not an event kind; use * or one of ${WEBHOOK_EVENT_KINDS.join(', ')}` };
}

/** Whether a webhook subscribed to `events` receives an event of `type`. */
export function webhookWants(events: readonly string[], type: string): boolean {
  return events.includes('*') || events.includes(type);
}
