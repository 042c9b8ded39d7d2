import type { MailroomConfig } from '@mailroom/config';
import { EmailCountsCompactor } from './email-counts.compactor';
import { EmailRetention } from './email-retention';
import { EmailsModule } from './emails.module';
import { IdempotencyPurger } from './idempotency.purger';
import { SendingDomainDeletionsPurger } from '../domain-usage/sending-domain-deletions.purger';

const BACKGROUND = [EmailCountsCompactor, EmailRetention, IdempotencyPurger, SendingDomainDeletionsPurger];

describe('EmailsModule and EMAILS_ROLE', () => {
  const providersFor = (role: MailroomConfig['EMAILS_ROLE']) => EmailsModule.forRoot({ EMAILS_ROLE: role, NATS_URL: 'nats://127.0.0.1:4222' } as MailroomConfig).providers ?? [];

  it('runs the purges and the compaction only in processes that do background work: an api process only answers requests', () => {
    for (const role of ['all', 'worker'] as const) expect(providersFor(role)).toEqual(expect.arrayContaining(BACKGROUND));
    for (const part of BACKGROUND) expect(providersFor('api')).not.toContain(part);
  });
});
