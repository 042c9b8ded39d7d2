import type { MailroomConfig } from '@mailroom/config';
import { createServiceApp } from '@mailroom/runtime';
import { EmailsAppModule } from './app.module';
import { answersRequests } from './process-role';

export function bootstrapEmails(config: MailroomConfig) {
  return createServiceApp('emails', EmailsAppModule.forRoot(config), config, { answersRequests: answersRequests(config) });
}
