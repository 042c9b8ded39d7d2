import { Module } from '@nestjs/common';
import { DeliveryRepository } from './delivery.repository';
import { QueueMetrics } from './queue-metrics';

/**
 * The delivery queue's gauges, in every emails process whatever its role: an
 * api process reports a queue that no worker drains, which is how a missing
 * worker shows.
 */
@Module({ providers: [DeliveryRepository, QueueMetrics] })
export class QueueMetricsModule {}
