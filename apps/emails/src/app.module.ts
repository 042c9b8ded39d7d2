import { DynamicModule, Module } from '@nestjs/common';
import type { MailroomConfig } from '@mailroom/config';
import { healthController, MailroomConfigModule, serviceDatabaseModule } from '@mailroom/runtime';
import { EMAILS_SCHEMA } from './database/data-source';

@Module({})
export class EmailsAppModule {
  static forRoot(config: MailroomConfig): DynamicModule {
    return {
      module: EmailsAppModule,
      imports: [MailroomConfigModule.forRoot(config), serviceDatabaseModule(config, EMAILS_SCHEMA)],
      controllers: [healthController('emails')],
    };
  }
}
