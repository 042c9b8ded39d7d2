import { DynamicModule, Module } from '@nestjs/common';
import type { MailroomConfig } from '@mailroom/config';
import { healthController, MailroomConfigModule, serviceDatabaseModule } from '@mailroom/runtime';
import { EMAILS_SCHEMA } from './database/data-source';
import { DeliveryModule } from './delivery/delivery.module';
import { QueueMetricsModule } from './delivery/queue-metrics.module';
import { EmailsModule } from './emails/emails.module';
import { SuppressionsModule } from './suppressions/suppressions.module';
import { AnalyticsModule } from './analytics/analytics.module';
import { TrackingModule } from './tracking/tracking.module';
import { ComplaintsModule } from './complaints/complaints.module';
import { BouncesModule } from './bounces/bounces.module';
import { OutboxRelayModule } from '@mailroom/outbox';
import { backgroundOnly } from './process-role';

@Module({})
export class EmailsAppModule {
  static forRoot(config: MailroomConfig): DynamicModule {
    return {
      module: EmailsAppModule,
      imports: [
        MailroomConfigModule.forRoot(config),
        serviceDatabaseModule(config, EMAILS_SCHEMA),
        EmailsModule.forRoot(config),
        SuppressionsModule,
        TrackingModule,
        AnalyticsModule.forRoot(config),
        QueueMetricsModule,
        ...backgroundOnly(config, [
          DeliveryModule.forRoot(config),
          ComplaintsModule,
          BouncesModule,
          // Publishes emails.outbox to the event stream (webhooks, analytics, internal consumers).
          OutboxRelayModule.forSchema('emails'),
        ]),
      ],
      controllers: [healthController('emails')],
    };
  }
}
