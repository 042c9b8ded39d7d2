import { EVENT_STREAM, EVENT_STREAM_SUBJECTS } from '@mailroom/contracts';
import { DiscardPolicy, JetStreamManager, RetentionPolicy, StorageType } from 'nats';
import { subjectsWith } from './stream-subjects';

const DAY_NS = 24 * 60 * 60 * 1_000_000_000;
const MAX_AGE_DAYS = 7;
/** How long the stream keeps an event, so how late a consumer can see one redelivered or replayed. */
export const EVENT_STREAM_MAX_AGE_MS = MAX_AGE_DAYS * 24 * 60 * 60 * 1000;
/**
 * How long a consumer keeps the ids of the events it applied, to tell a redelivery from a new event: a day past the
 * stream's own retention, since the stream cannot deliver an event older than that again.
 */
export const APPLIED_EVENTS_RETENTION_MS = EVENT_STREAM_MAX_AGE_MS + 24 * 60 * 60 * 1000;

/**
 * Creates the event stream if it does not exist, with `replicas` copies
 * (EVENT_STREAM_REPLICAS), and scales an existing one up to that many: a
 * stream created before the setting was raised would otherwise stay on one
 * server of the cluster. It is never scaled down here; that is an
 * operator's decision. An existing stream also gets the subjects it lacks;
 * its other settings are left as they are. File storage survives a NATS restart; the 2-minute
 * duplicate window drops an event republished after a relay crashed between
 * publishing and marking it published.
 */
export async function ensureEventStream(manager: JetStreamManager, replicas = 1): Promise<void> {
  try {
    const existing = await manager.streams.info(EVENT_STREAM).catch(() => null);
    if (!existing) {
      await manager.streams
        .add({
          name: EVENT_STREAM,
          subjects: EVENT_STREAM_SUBJECTS,
          storage: StorageType.File,
          retention: RetentionPolicy.Limits,
          discard: DiscardPolicy.Old,
          max_age: MAX_AGE_DAYS * DAY_NS,
          duplicate_window: 2 * 60 * 1_000_000_000,
          num_replicas: replicas,
        })
        .catch(async (error) => {
          // Another replica created it between our check and our add.
          await manager.streams.info(EVENT_STREAM).catch(() => {
            throw error;
          });
        });
    } else {
      await addMissingSubjects(manager, existing.config.subjects ?? []);
      if (existing.config.num_replicas < replicas) await manager.streams.update(EVENT_STREAM, { num_replicas: replicas });
    }
  } catch (error) {
    // nats-server's own words ("replicas > 1 not supported in non-clustered mode") do not name the setting.
    throw new Error(`cannot set up the ${EVENT_STREAM} stream with EVENT_STREAM_REPLICAS=${replicas}: ${(error as Error).message}`);
  }
}

/**
 * Gives a stream made beforehand (by an operator, with subjects of their own)
 * the subjects Mailroom publishes on: one without `domain.>` answered every
 * domain event's publish with no responders, so the domains relay retried
 * them for ever and domain webhooks never fired.
 */
async function addMissingSubjects(manager: JetStreamManager, current: string[]): Promise<void> {
  const subjects = subjectsWith(current, EVENT_STREAM_SUBJECTS);
  if (!subjects) return;
  await manager.streams.update(EVENT_STREAM, { subjects }).catch((error: Error) => {
    throw new Error(`its subjects ${current.join(', ')} lack some of ${EVENT_STREAM_SUBJECTS.join(', ')}, and adding them failed: ${error.message}`);
  });
}

/** Messages of the stream a durable consumer has not acked yet: not yet delivered, or delivered and awaiting an ack. */
export async function unackedMessages(manager: JetStreamManager, durable: string): Promise<number> {
  const info = await manager.consumers.info(EVENT_STREAM, durable);
  return info.num_pending + info.num_ack_pending;
}
