import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { EVENT_STREAM, EventEnvelope } from '@mailroom/contracts';
import { ByteBudget, ensureEventStream, messageBudget, HeldMessages, MessageSource, pullWithinBudget, readEnvelope, redeliverLater, settle, StreamReader } from '@mailroom/outbox';
import { JsMsg, NatsConnection } from 'nats';
import { connectNats } from '@mailroom/runtime';
import { WebhookSettings } from '../webhook-settings';
import { DeliveryWorker } from './delivery-worker';
import { DISPATCHER_CONSUMER, ensureDispatcherConsumer, FAN_OUT_BATCH, FAN_OUT_BATCH_BYTES } from './dispatcher-consumer';
import { eventBufferPeakGauge } from './event-buffer-metrics';
import { takeBatch } from './fan-out-batch';
import { DispatchRepository } from './dispatch.repository';

/**
 * Reads the event stream through a durable pull consumer and turns each event
 * into delivery rows. Messages that arrive together are fanned out in one
 * transaction and acked only after it committed; a crash before the ack
 * redelivers them, and the (webhook_id, event_id) key makes that a no-op.
 */
@Injectable()
export class EventConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(EventConsumer.name);
  private connection?: NatsConnection;
  private readonly buffer: JsMsg[] = [];
  /** Kept from redelivery while they wait in the buffer or their fan-out runs, however long the database takes. */
  private readonly held: HeldMessages;
  /** Bytes of the messages in the buffer or in a fan-out (EVENT_BUFFER_BYTES): the stream is read only as far as it has room. */
  private readonly budget: ByteBudget<JsMsg>;
  private flushing?: Promise<void>;
  private reader?: StreamReader;

  constructor(
    private readonly repository: DispatchRepository,
    private readonly worker: DeliveryWorker,
    private readonly settings: WebhookSettings,
  ) {
    this.budget = messageBudget(settings.eventBufferBytes);
    this.held = new HeldMessages(settings.eventAckWaitMs);
    eventBufferPeakGauge.set(0);
  }

  /** Fails the boot when NATS cannot be reached; later interruptions are the read loop's to recover from. */
  async onApplicationBootstrap(): Promise<void> {
    this.connection = await connectNats(this.settings.nats);
    const connection = this.connection;
    const first = await this.subscribe(connection);
    this.reader = new StreamReader(
      () => this.subscribe(connection),
      (message) => {
        this.held.hold(message);
        this.budget.take(message);
        eventBufferPeakGauge.set(this.budget.peak);
        this.buffer.push(message);
        if (!this.flushing) this.flushing = this.flush();
      },
      this.logger,
      first,
    );
  }

  async onApplicationShutdown(): Promise<void> {
    // Unacked messages are redelivered after AckWait, to whichever replica is up.
    await this.reader?.stop();
    await this.flushing;
    this.held.close();
    await this.connection?.drain().catch(() => undefined);
  }

  /**
   * The stream and the durable consumer, made if missing, and its messages. A
   * stream or consumer that is gone ends the iteration (abort_on_missing_resource)
   * and StreamReader subscribes again: after the stream was deleted and made anew (a
   * NATS server back without its store), nats.js waited for the old consumer for
   * ever and no webhook received another event until the dispatcher restarted.
   * Read within the byte budget: large events must not pile up in memory.
   */
  private async subscribe(connection: NatsConnection): Promise<MessageSource> {
    const manager = await connection.jetstreamManager();
    await ensureEventStream(manager, this.settings.eventStreamReplicas);
    await ensureDispatcherConsumer(manager, this.settings.eventAckWaitMs);
    const consumer = await connection.jetstream().consumers.get(EVENT_STREAM, DISPATCHER_CONSUMER);
    return pullWithinBudget(consumer, this.budget, connection.info?.max_payload ?? 0);
  }

  /** Fans out whatever has arrived, batch after batch, until the buffer is empty. */
  private async flush(): Promise<void> {
    try {
      while (this.buffer.length) {
        const batch = takeBatch(this.buffer, FAN_OUT_BATCH, FAN_OUT_BATCH_BYTES);
        // Every message of the batch is acked, handed back or dropped by the time fanOut returns.
        await this.fanOut(batch).finally(() =>
          batch.forEach((message) => {
            this.held.release(message);
            this.budget.give(message);
          }),
        );
      }
    } finally {
      this.flushing = undefined;
    }
  }

  private async fanOut(batch: JsMsg[]): Promise<void> {
    const valid: Array<{ message: JsMsg; envelope: EventEnvelope }> = [];
    for (const message of batch) {
      const envelope = readEnvelope(message, this.logger, DISPATCHER_CONSUMER);
      if (envelope) valid.push({ message, envelope });
    }
    if (!valid.length) return;
    try {
      await this.fanOutTogether(valid);
    } catch (error) {
      if (valid.length === 1) return this.redeliverLater(valid, error);
      // One event the database refuses fails the whole batch; one by one, the good ones still go out.
      for (const item of valid) await this.fanOutTogether([item]).catch((alone: unknown) => this.redeliverLater([item], alone));
    }
  }

  private async fanOutTogether(items: Array<{ message: JsMsg; envelope: EventEnvelope }>): Promise<void> {
    const created = await this.repository.fanOut(
      items.map((item) => item.envelope),
      this.settings.retrySchedule[0],
      this.settings.retrySchedule.length,
    );
    for (const { message } of items) settle(() => message.ack());
    if (created) this.worker.wake();
  }

  private redeliverLater(items: Array<{ message: JsMsg }>, error: unknown): void {
    this.logger.warn({ err: (error as Error).message, events: items.length }, 'fan-out failed; the events will be redelivered');
    for (const { message } of items) redeliverLater(message);
  }
}
