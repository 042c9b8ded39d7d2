import type { Mode } from '../common/request-context';

/**
 * The JetStream stream every durable event goes through. Its subjects are the
 * event types themselves (`email.delivered`, `domain.verified`), so internal
 * services can publish onto it too. Renaming it is a migration.
 */
export const EVENT_STREAM = 'MAILROOM_EVENTS';
export const EVENT_STREAM_SUBJECTS = ['email.>', 'domain.>'];

/** The one payload shape of every event, on the stream and in webhook deliveries. */
export interface EventEnvelope<D = Record<string, unknown>> {
  /** evt_<ULID>; also the Nats-Msg-Id, so a republished event is dropped as a duplicate. */
  id: string;
  type: string;
  createdAt: string;
  /** live or test: test events reach only test webhooks. */
  mode: Mode;
  data: D;
}
