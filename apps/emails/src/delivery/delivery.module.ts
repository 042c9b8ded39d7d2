import { DynamicModule, Logger, Module } from '@nestjs/common';
import { ClientsModule, Transport } from '@nestjs/microservices';
import type { MailroomConfig } from '@mailroom/config';
import { natsClientOptions } from '@mailroom/runtime';
import { AttemptRecorder } from './attempt-recorder';
import { AttemptsRepository } from './attempts.repository';
import { DeliveryRepository } from './delivery.repository';
import { DeliveryWorker } from './delivery.worker';
import { MtaStsPurger } from './mta-sts/mta-sts.purger';
import { MtaStsRepository } from './mta-sts/mta-sts.repository';
import { MessageBuilder } from './message/message-builder';
import { trackingTokensFromConfig } from '@mailroom/auth';
import { EmailDelivery, TRACKING_TOKENS } from './email-delivery.service';
import { DELIVERY_NATS_CLIENT, SenderIdentityCache } from './sender-identity.cache';
import { createDeliveryTransport } from './smtp/create-transport';
import { DELIVERY_TRANSPORT } from './smtp/delivery-transport';

/** The delivery side of the emails service: the worker pool, message building and signing, and the SMTP transports. */
@Module({})
export class DeliveryModule {
  static forRoot(config: MailroomConfig): DynamicModule {
    return {
      module: DeliveryModule,
      imports: [ClientsModule.register([{ name: DELIVERY_NATS_CLIENT, transport: Transport.NATS, options: natsClientOptions(config) }])],
      providers: [
        { provide: DELIVERY_TRANSPORT, useFactory: (policies: MtaStsRepository) => createDeliveryTransport(config, policies), inject: [MtaStsRepository] },
        { provide: TRACKING_TOKENS, useFactory: () => trackingTokensFromConfig(config, (message) => new Logger('TrackingTokens').warn(message)) },
        DeliveryRepository,
        MtaStsRepository,
        MtaStsPurger,
        AttemptsRepository,
        AttemptRecorder,
        SenderIdentityCache,
        MessageBuilder,
        EmailDelivery,
        DeliveryWorker,
      ],
    };
  }
}
