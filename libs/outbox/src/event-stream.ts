import { EVENT_STREAM, EVENT_STREAM_SUBJECTS } from '@mailroom/contracts';
import { DiscardPolicy, JetStreamManager, RetentionPolicy, StorageType } from 'nats';

const DAY_NS = 24 * 60 * 60 * 1_000_000_000;
const MAX_AGE_DAYS = 7;
/** How long the stream keeps an event, so how late a consumer can see one redelivered or replayed. */
export const EVENT_STREAM_MAX_AGE_MS = MAX_AGE_DAYS * 24 * 60 * 60 * 1000;

/**
 * Creates the event stream if it does not exist. File storage survives a NATS
 * restart; the 2-minute duplicate window drops an event republished after a
 * relay crashed between publishing and marking it published.
 */
export async function ensureEventStream(manager: JetStreamManager): Promise<void> {
  try {
    await manager.streams.info(EVENT_STREAM);
  } catch {
    await manager.streams
      .add({
        name: EVENT_STREAM,
        subjects: EVENT_STREAM_SUBJECTS,
        storage: StorageType.File,
        retention: RetentionPolicy.Limits,
        discard: DiscardPolicy.Old,
        max_age: MAX_AGE_DAYS * DAY_NS,
        duplicate_window: 2 * 60 * 1_000_000_000,
      })
      .catch(async (error) => {
        // Another replica created it between our check and our add.
        await manager.streams.info(EVENT_STREAM).catch(() => {
          throw error;
        });
      });
  }
}

/** Messages of the stream a durable consumer has not acked yet: not yet delivered, or delivered and awaiting an ack. */
export async function unackedMessages(manager: JetStreamManager, durable: string): Promise<number> {
  const info = await manager.consumers.info(EVENT_STREAM, durable);
  return info.num_pending + info.num_ack_pending;
}
