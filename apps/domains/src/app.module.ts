import { DynamicModule, Module } from '@nestjs/common';
import type { MailroomConfig } from '@mailroom/config';
import { healthController, MailroomConfigModule, serviceDatabaseModule } from '@mailroom/runtime';
import { DOMAINS_SCHEMA } from './database/data-source';
import { DomainsModule } from './domains/domains.module';

@Module({})
export class DomainsAppModule {
  static forRoot(config: MailroomConfig): DynamicModule {
    return {
      module: DomainsAppModule,
      imports: [MailroomConfigModule.forRoot(config), serviceDatabaseModule(config, DOMAINS_SCHEMA), DomainsModule.forRoot(config)],
      controllers: [healthController('domains')],
    };
  }
}
