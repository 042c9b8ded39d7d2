import { EVENT_STREAM } from '@mailroom/contracts';
import { AckPolicy, ConsumerConfig, DeliverPolicy, JetStreamManager, nanos } from 'nats';
import { keepDurableSettings } from '@mailroom/outbox';

/** Shared by every replica: JetStream hands each event to one of them. Renaming it replays the stream. */
export const DISPATCHER_CONSUMER = 'webhook-dispatcher';
/** Events fanned out in one transaction. */
export const FAN_OUT_BATCH = 200;
/**
 * Bytes of events fanned out in one transaction (at least one event): the
 * statement carries them all as one JSON parameter, a copy as large again.
 */
export const FAN_OUT_BATCH_BYTES = 4 * 1024 * 1024;
/**
 * Events handed to the dispatchers and not yet acked, all replicas together.
 * A pull consumer takes events as fast as the server sends them, not as fast
 * as fan-out writes them, so an event can wait behind this many. It was
 * 10,000: catching up on a backlog at a few hundred events a second (70
 * webhooks on a 2-core machine), the last ones waited past the ack wait (then fixed at 30 s) and a
 * third of the stream was redelivered and fanned out again while the first
 * copies still queued, adding work just when the dispatcher was behind. Five
 * batches keep every replica busy and are written in seconds.
 */
export const MAX_UNACKED_EVENTS = 5 * FAN_OUT_BATCH;

/**
 * Creates the durable consumer, or takes the one another replica (or an
 * earlier version, or another EVENT_ACK_WAIT_MS) made, and gives it this
 * version's window of unacked events and this configuration's ack wait: a
 * message not acked within it (the replica died) goes to another replica.
 */
export async function ensureDispatcherConsumer(manager: JetStreamManager, ackWaitMs: number): Promise<void> {
  const config: Partial<ConsumerConfig> = {
    durable_name: DISPATCHER_CONSUMER,
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(ackWaitMs),
    // Every event the stream still holds: events published before the first dispatcher started are not lost.
    deliver_policy: DeliverPolicy.All,
    max_ack_pending: MAX_UNACKED_EVENTS,
  };
  const existing = await manager.consumers.add(EVENT_STREAM, config).catch(async (error) => {
    // It exists with other settings; its delivery state (what was acked) is kept.
    return manager.consumers.info(EVENT_STREAM, DISPATCHER_CONSUMER).catch(() => {
      throw error;
    });
  });
  await keepDurableSettings(manager, existing, { max_ack_pending: MAX_UNACKED_EVENTS, ack_wait: nanos(ackWaitMs) });
}
