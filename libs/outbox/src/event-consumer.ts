import type { MailroomConfig } from '@mailroom/config';
import { Logger } from '@nestjs/common';
import { EVENT_STREAM, EventEnvelope } from '@mailroom/contracts';
import { AckPolicy, DeliverPolicy, JsMsg, nanos, NatsConnection } from 'nats';
import { LoopTurnQueue, connectNats, NatsSettings } from '@mailroom/runtime';
import { ensureEventStream } from './event-stream';
import { HeldMessages } from './held-messages';
import { handlerFailureLevel } from './not-yet';
import { publishedBy } from './origin-header';
import { readEnvelope, redeliverLater, settle } from './stream-message';
import { StreamReader } from './stream-reader';
import { messageBudget } from './byte-budget';
import { pullWithinBudget } from './budgeted-pulls';
import { StreamsWithDurable } from './streams-with-durable';
import { keepDurableSettings } from './durable-settings';

export interface EventConsumerOptions {
  nats: NatsSettings;
  /** EVENT_STREAM_REPLICAS, for the stream this creates when it is the first to need it. */
  streamReplicas?: number;
  /** Durable name: replicas with the same name share the messages. */
  durable: string;
  /** One subject filter (nats-server 2.9 takes one per consumer), e.g. `email.>`. */
  filterSubject: string;
  /**
   * Gets only well-formed envelopes (parseEventEnvelope); a malformed one is
   * logged and dropped. Throwing redelivers the message later, after a delay
   * that grows with each attempt; handlers must be idempotent (delivery is at
   * least once). A NotYetError says the event waits on something expected,
   * logged at debug until it has waited long (handlerFailureLevel); anything
   * else is a failure, logged as a warning.
   */
  handle(event: EventEnvelope): Promise<void>;
  /**
   * A service name (the schema of its outbox): events that service's outbox
   * relay published (ORIGIN_HEADER) are acknowledged without reaching
   * `handle`. For a consumer of reports from internal services on a subject
   * its own service publishes too, whose own events were applied when they
   * were written.
   */
  skipPublishedBy?: string;
  /**
   * A durable created now starts with the events published from now on
   * instead of the stream's oldest (7 days of them). For a consumer added to
   * a running deployment whose stream holds events it must not apply: its
   * own service's, published before they carried ORIGIN_HEADER. Only its
   * first creation: a durable this consumer had that went with its stream
   * (deleted, or a NATS server back without its store) is made again from
   * the new stream's oldest event, since that stream holds nothing from
   * before and skipping would lose what was published before the durable
   * was back.
   */
  startAtCreation?: boolean;
  /** EVENT_ACK_WAIT_MS (default 30 s): how late the events a crashed replica held go to another. */
  ackWaitMs?: number;
  /**
   * How many events may be in the handler at once (default 1: one after
   * another, in stream order). More lets a handler batch its writes; only for
   * handlers that do not care about order.
   */
  concurrency?: number;
  /**
   * EVENT_BUFFER_BYTES: bytes of events held at once, waiting or in a handler
   * (default 16 MiB); the stream is read only as far as there is room.
   */
  bufferBytes?: number;
}

const DEFAULT_BUFFER_BYTES = 16 * 1024 * 1024;

export interface RunningConsumer {
  stop(): Promise<void>;
}

/** What every consumer in a service takes from its configuration: how to reach NATS, the stream's replicas, the buffer. */
export function consumerSettingsFrom(config: MailroomConfig): Pick<EventConsumerOptions, 'nats' | 'streamReplicas' | 'bufferBytes' | 'ackWaitMs'> {
  return { nats: config, streamReplicas: config.EVENT_STREAM_REPLICAS, bufferBytes: config.EVENT_BUFFER_BYTES, ackWaitMs: config.EVENT_ACK_WAIT_MS };
}

/**
 * A durable JetStream pull consumer of the event stream that acks a message
 * only after its handler succeeded, and reconnects after NATS restarts.
 */
export async function consumeEvents(options: EventConsumerOptions): Promise<RunningConsumer> {
  const logger = new Logger(`EventConsumer:${options.durable}`);
  const connection: NatsConnection = await connectNats(options.nats);
  let running = true;
  const ackWaitMs = options.ackWaitMs ?? 30000;

  const streamWithDurable = new StreamsWithDurable();
  const budget = messageBudget(options.bufferBytes ?? DEFAULT_BUFFER_BYTES);
  const setUp = async () => {
    const manager = await connection.jetstreamManager();
    await ensureEventStream(manager, options.streamReplicas);
    const stream = await manager.streams.info(EVENT_STREAM);
    const durable = await manager.consumers.info(EVENT_STREAM, options.durable).catch(() =>
      manager.consumers.add(EVENT_STREAM, {
        durable_name: options.durable,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: options.startAtCreation && !streamWithDurable.replaces(stream.created) ? DeliverPolicy.New : DeliverPolicy.All,
        filter_subject: options.filterSubject,
        ack_wait: nanos(ackWaitMs),
        max_deliver: -1,
      }),
    );
    // A durable made under another EVENT_ACK_WAIT_MS takes this one.
    await keepDurableSettings(manager, durable, { ack_wait: nanos(ackWaitMs) });
    streamWithDurable.seen(stream.created);
    return pullWithinBudget(await connection.jetstream().consumers.get(EVENT_STREAM, options.durable), budget, connection.info?.max_payload ?? 0);
  };

  const concurrency = Math.max(1, options.concurrency ?? 1);
  /**
   * Each handler finishes in a callback of its own, and nats.js writes to the
   * socket once per microtask checkpoint, so every ack cost a write syscall and
   * a wake-up of nats-server: 0.9 writes per accepted email under a send load,
   * three quarters of all the emails service's writes. Acks (and naks) of one
   * loop turn go out together instead; an ack a turn later changes nothing for
   * at-least-once delivery.
   */
  const settlements = new LoopTurnQueue();
  /** Acks only after the handler succeeded; never rejects. */
  const handleOne = async (message: JsMsg): Promise<void> => {
    if (options.skipPublishedBy && publishedBy(message) === options.skipPublishedBy) {
      settlements.push(() => settle(() => message.ack()));
      return;
    }
    const envelope = readEnvelope(message, logger, options.durable);
    if (!envelope) return;
    try {
      await options.handle(envelope);
      settlements.push(() => settle(() => message.ack()));
    } catch (error) {
      const details = { err: (error as Error).message, subject: message.subject, eventId: envelope.id, attempt: message.info.redeliveryCount };
      if (handlerFailureLevel(error, message.info.redeliveryCount) === 'debug') logger.debug(details, 'event waits on something not yet done; redelivering later');
      else logger.warn(details, 'event handler failed; redelivering later');
      settlements.push(() => redeliverLater(message));
    }
  };

  /** Received and not yet handed to a handler, in stream order; held (see HeldMessages) until settled. */
  const waiting: JsMsg[] = [];
  const held = new HeldMessages(ackWaitMs);
  const inFlight = new Set<Promise<void>>();
  const startHandlers = () => {
    while (running && inFlight.size < concurrency && waiting.length) {
      const message = waiting.shift()!;
      const handled = handleOne(message).finally(() => {
        held.release(message);
        budget.give(message);
        inFlight.delete(handled);
        startHandlers();
      });
      inFlight.add(handled);
    }
  };

  // Takes every message as it arrives (up to the consumer's ack window, 1,000 unacked, and the byte budget), so each is
  // held from the start however long the handlers ahead of it take; messages left in the client's own buffer were not.
  const reader = new StreamReader(
    setUp,
    (message) => {
      held.hold(message);
      budget.take(message);
      waiting.push(message);
      startHandlers();
    },
    logger,
  );

  return {
    stop: async () => {
      running = false;
      await reader.stop();
      while (inFlight.size) await Promise.race(inFlight);
      // Received but never started: handed back now, for a replica still running, rather than after AckWait.
      for (const message of waiting.splice(0)) settlements.push(() => settle(() => message.nak()));
      held.close();
      // The last handlers' acks are queued for the end of this turn; send them before the connection drains.
      await new Promise((resolve) => setImmediate(resolve));
      await connection.drain().catch(() => undefined);
    },
  };
}
