import { DynamicModule, Module } from '@nestjs/common';
import { ClientsModule, Transport } from '@nestjs/microservices';
import type { MailroomConfig } from '@mailroom/config';
import { IdempotencyKeyWait, natsClientOptions } from '@mailroom/runtime';
import { EmailQueryService } from './email-query.service';
import { EmailRetention } from './email-retention';
import { EmailScheduleService } from './email-schedule.service';
import { EmailSendingService } from './email-sending.service';
import { EmailWriter } from './email-writer';
import { DomainUsageController } from '../domain-usage/domain-usage.controller';
import { DomainUsageService } from '../domain-usage/domain-usage.service';
import { SendingDomainFence } from '../domain-usage/sending-domain-fence';
import { SendingDomainDeletionsPurger } from '../domain-usage/sending-domain-deletions.purger';
import { EmailCountsCompactor } from './email-counts.compactor';
import { EmailCountsRepository } from './email-counts.repository';
import { EmailsController } from './emails.controller';
import { EmailsRepository } from './emails.repository';
import { IdempotencyPurger } from './idempotency.purger';
import { IdempotencyStore } from './idempotency.store';
import { EMAILS_NATS_CLIENT, SenderIdentityClient } from './sender-identity.client';
import { SenderPolicy } from './sender-policy';
import { SingleSendCommitter } from './single-send.committer';
import { backgroundOnly } from '../process-role';

/** The sending and reading API of emails (the delivery worker lives in ../delivery). */
@Module({})
export class EmailsModule {
  static forRoot(config: MailroomConfig): DynamicModule {
    return {
      module: EmailsModule,
      imports: [ClientsModule.register([{ name: EMAILS_NATS_CLIENT, transport: Transport.NATS, options: natsClientOptions(config) }])],
      controllers: [EmailsController, DomainUsageController],
      providers: [
        EmailsRepository,
        EmailCountsRepository,
        IdempotencyStore,
        IdempotencyKeyWait,
        SenderIdentityClient,
        SenderPolicy,
        SendingDomainFence,
        DomainUsageService,
        EmailWriter,
        SingleSendCommitter,
        EmailSendingService,
        EmailScheduleService,
        EmailQueryService,
        ...backgroundOnly(config, [EmailCountsCompactor, EmailRetention, IdempotencyPurger, SendingDomainDeletionsPurger]),
      ],
      exports: [EmailsRepository, SenderIdentityClient],
    };
  }
}
