import { DynamicModule, Module } from '@nestjs/common';
import { OUTBOX_SCHEMA, OutboxRelay } from './outbox-relay';

/** Import into a service's module to publish its `<schema>.outbox` to the event stream. */
@Module({})
export class OutboxRelayModule {
  static forSchema(schema: string): DynamicModule {
    return { module: OutboxRelayModule, providers: [{ provide: OUTBOX_SCHEMA, useValue: schema }, OutboxRelay], exports: [OutboxRelay] };
  }
}
