import type { MailroomConfig } from '@mailroom/config';
import { createServiceApp } from '@mailroom/runtime';
import { WebhooksAppModule } from './app.module';

export function bootstrapWebhooks(config: MailroomConfig) {
  return createServiceApp('webhook-dispatcher', WebhooksAppModule.forRoot(config), config);
}
