import type { MailroomConfig } from '@mailroom/config';
import { createServiceApp } from '@mailroom/runtime';
import { KeysAppModule } from './app.module';

export function bootstrapKeys(config: MailroomConfig) {
  return createServiceApp('keys', KeysAppModule.forRoot(config), config);
}
