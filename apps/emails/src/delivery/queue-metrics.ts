import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { DeliveryRepository } from './delivery.repository';
import { clearQueueGaugeSource, oldestDueAge, QueueGaugeSource, queueDepth, setQueueGaugeSource } from './delivery-metrics';

/** Both queue gauges are read in one scrape: one query serves them both. */
const SNAPSHOT_MAX_AGE_MS = 1000;
/** A scrape must not hang on a database that does not answer; the gauges then keep their last values. */
const QUERY_TIMEOUT_MS = 2000;

/**
 * Fills the queue gauges when Prometheus scrapes, with one indexed query
 * (DeliveryRepository.queueSnapshot), at most once a second however many
 * scrapers there are. Nothing is computed between scrapes.
 */
@Injectable()
export class QueueMetrics implements QueueGaugeSource, OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(QueueMetrics.name);
  private pending: Promise<void> | undefined;
  private takenAt = 0;

  constructor(private readonly repository: DeliveryRepository) {}

  onModuleInit(): void {
    setQueueGaugeSource(this);
  }

  onModuleDestroy(): void {
    clearQueueGaugeSource(this);
  }

  refresh(): Promise<void> {
    if (this.pending && Date.now() - this.takenAt < SNAPSHOT_MAX_AGE_MS) return this.pending;
    this.takenAt = Date.now();
    this.pending = this.update();
    return this.pending;
  }

  private async update(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${QUERY_TIMEOUT_MS} ms`)), QUERY_TIMEOUT_MS)));
      const snapshot = await Promise.race([this.repository.queueSnapshot(), timeout]);
      queueDepth.set({ state: 'due' }, snapshot.due);
      queueDepth.set({ state: 'scheduled' }, snapshot.scheduled);
      queueDepth.set({ state: 'deferred' }, snapshot.deferred);
      oldestDueAge.set(snapshot.oldestDueSeconds);
    } catch (error) {
      this.logger.warn({ err: (error as Error).message }, 'reading the delivery queue for metrics failed; the gauges keep their last values');
    } finally {
      clearTimeout(timer);
    }
  }
}
