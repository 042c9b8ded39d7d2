import { DynamicModule, Global, Module } from '@nestjs/common';
import type { MailroomConfig } from '@mailroom/config';

export const MAILROOM_CONFIG = Symbol('MailroomConfig');

/** Provides the validated config to every app's providers. */
@Global()
@Module({})
export class MailroomConfigModule {
  static forRoot(config: MailroomConfig): DynamicModule {
    return { module: MailroomConfigModule, providers: [{ provide: MAILROOM_CONFIG, useValue: config }], exports: [MAILROOM_CONFIG] };
  }
}
