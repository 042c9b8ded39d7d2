import { DynamicModule, Module } from '@nestjs/common';
import type { MailroomConfig } from '@mailroom/config';
import { healthController, MailroomConfigModule, serviceDatabaseModule } from '@mailroom/runtime';
import { WEBHOOKS_SCHEMA } from './database/data-source';
import { WebhooksModule } from './webhooks/webhooks.module';

@Module({})
export class WebhooksAppModule {
  static forRoot(config: MailroomConfig): DynamicModule {
    return {
      module: WebhooksAppModule,
      imports: [MailroomConfigModule.forRoot(config), serviceDatabaseModule(config, WEBHOOKS_SCHEMA), WebhooksModule],
      controllers: [healthController('webhook-dispatcher')],
    };
  }
}
