import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { ScrapeSnapshot } from '@mailroom/runtime';
import { DeliveryRepository } from './delivery.repository';
import { clearQueueGaugeSource, oldestDueAge, QueueGaugeSource, queueDepth, setQueueGaugeSource } from './delivery-metrics';

/**
 * Fills the queue gauges when Prometheus scrapes, with one indexed query
 * (DeliveryRepository.queueSnapshot), at most once a second however many
 * scrapers there are (ScrapeSnapshot).
 */
@Injectable()
export class QueueMetrics implements QueueGaugeSource, OnModuleInit, OnModuleDestroy {
  private readonly snapshot: ScrapeSnapshot;

  constructor(private readonly repository: DeliveryRepository) {
    this.snapshot = new ScrapeSnapshot(() => this.update(), new Logger(QueueMetrics.name), 'the delivery queue');
  }

  onModuleInit(): void {
    setQueueGaugeSource(this);
  }

  onModuleDestroy(): void {
    clearQueueGaugeSource(this);
  }

  refresh(): Promise<void> {
    return this.snapshot.refresh();
  }

  private async update(): Promise<void> {
    const snapshot = await this.repository.queueSnapshot();
    queueDepth.set({ state: 'due' }, snapshot.due);
    queueDepth.set({ state: 'scheduled' }, snapshot.scheduled);
    queueDepth.set({ state: 'deferred' }, snapshot.deferred);
    oldestDueAge.set(snapshot.oldestDueSeconds);
  }
}
