import { DynamicModule, Module } from '@nestjs/common';
import { ClientsModule, Transport } from '@nestjs/microservices';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { MailroomConfig } from '@mailroom/config';
import { OutboxRelayModule } from '@mailroom/outbox';
import { natsClientOptions } from '@mailroom/runtime';
import { DkimKeyEntity } from '../database/entities/dkim-key.entity';
import { DomainEntity } from '../database/entities/domain.entity';
import { DkimKeysRepository } from '../dkim-rotation/dkim-keys.repository';
import { DkimPromotion } from '../dkim-rotation/dkim-promotion';
import { DkimRotationService } from '../dkim-rotation/dkim-rotation.service';
import { RetiredKeysPurge } from '../dkim-rotation/retired-keys-purge';
import { DkimDnsResponder } from '../dkim-zone/dkim-dns-responder';
import { DkimKeyCache } from '../dkim-zone/dkim-key-cache';
import { DkimZoneService } from '../dkim-zone/dkim-zone.service';
import { SenderIdentityService } from '../sender-identity/sender-identity.service';
import { DomainVerifier } from '../verification/domain-verifier';
import { RecheckScheduler } from '../verification/recheck-scheduler';
import { VerificationService } from '../verification/verification.service';
import { DkimKeyResealer } from './dkim-key-resealer';
import { DomainSettings } from './domain-settings';
import { DomainsController } from './domains.controller';
import { DomainsRepository } from './domains.repository';
import { DomainsService } from './domains.service';
import { DOMAINS_NATS_CLIENT, EmailsUsageClient } from './emails-usage.client';

@Module({})
export class DomainsModule {
  static forRoot(config: MailroomConfig): DynamicModule {
    return {
      module: DomainsModule,
      imports: [
        TypeOrmModule.forFeature([DomainEntity, DkimKeyEntity]),
        ClientsModule.register([{ name: DOMAINS_NATS_CLIENT, transport: Transport.NATS, options: natsClientOptions(config) }]),
        OutboxRelayModule.forSchema('domains'),
      ],
      controllers: [DomainsController],
      providers: [
        DomainSettings,
        DomainsRepository,
        DomainsService,
        EmailsUsageClient,
        DomainVerifier,
        VerificationService,
        RecheckScheduler,
        DkimKeyCache,
        DkimDnsResponder,
        DkimZoneService,
        SenderIdentityService,
        DkimKeyResealer,
        DkimKeysRepository,
        DkimRotationService,
        DkimPromotion,
        RetiredKeysPurge,
      ],
    };
  }
}
