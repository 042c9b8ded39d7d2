import type { JsMsg } from 'nats';

/**
 * The header the outbox relay sets on every event it publishes: the name of
 * the service whose outbox held it (its schema: `emails`, `domains`). Internal
 * services publishing onto the stream do not set it, so a consumer can tell
 * the events its own service already applied when it wrote them from reports
 * it has yet to apply.
 */
export const ORIGIN_HEADER = 'Mailroom-Origin';

/** The service whose outbox published `message`, or undefined for anything else (an internal publisher). */
export function publishedBy(message: Pick<JsMsg, 'headers'>): string | undefined {
  return message.headers?.get(ORIGIN_HEADER) || undefined;
}
