import type { MailroomConfig } from '@mailroom/config';
import { createServiceApp } from '@mailroom/runtime';
import { DomainsAppModule } from './app.module';

export function bootstrapDomains(config: MailroomConfig) {
  return createServiceApp('domains', DomainsAppModule.forRoot(config), config);
}
