import { DynamicModule, Module } from '@nestjs/common';
import { OutboxMetrics } from './outbox-backlog';
import { OUTBOX_SCHEMA, OutboxRelay } from './outbox-relay';

/** Import into a service's module to publish its `<schema>.outbox` to the event stream, and show its backlog in /metrics. */
@Module({})
export class OutboxRelayModule {
  static forSchema(schema: string): DynamicModule {
    return { module: OutboxRelayModule, providers: [{ provide: OUTBOX_SCHEMA, useValue: schema }, OutboxRelay, OutboxMetrics], exports: [OutboxRelay] };
  }
}
