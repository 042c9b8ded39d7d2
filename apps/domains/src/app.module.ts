import { DynamicModule, Module } from '@nestjs/common';
import type { MailroomConfig } from '@mailroom/config';
import { healthController, MailroomConfigModule, serviceDatabaseModule } from '@mailroom/runtime';
import { DOMAINS_SCHEMA } from './database/data-source';

@Module({})
export class DomainsAppModule {
  static forRoot(config: MailroomConfig): DynamicModule {
    return {
      module: DomainsAppModule,
      imports: [MailroomConfigModule.forRoot(config), serviceDatabaseModule(config, DOMAINS_SCHEMA)],
      controllers: [healthController('domains')],
    };
  }
}
