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
import { TlsSessionCounts } from './tls-rpt/tls-session-counts';
import { TLS_SESSION_COUNTS, TlsrptFlusher } from './tls-rpt/tlsrpt.flusher';
import { TlsrptPurger } from './tls-rpt/tlsrpt.purger';
import { TlsrptReporter } from './tls-rpt/tlsrpt.reporter';
import { TlsrptRepository } from './tls-rpt/tlsrpt.repository';

/** The delivery side of the emails service: the worker pool, message building and signing, and the SMTP transports. */
@Module({})
export class DeliveryModule {
  static forRoot(config: MailroomConfig): DynamicModule {
    // TLS reporting is about the sessions to recipients' MX hosts: relay mode has none (test mode never connects).
    const tlsReporting = config.DELIVERY_MODE === 'mx' && config.TLSRPT === 'on';
    return {
      module: DeliveryModule,
      imports: [ClientsModule.register([{ name: DELIVERY_NATS_CLIENT, transport: Transport.NATS, options: natsClientOptions(config) }])],
      providers: [
        { provide: TLS_SESSION_COUNTS, useFactory: () => (tlsReporting ? new TlsSessionCounts() : null) },
        {
          provide: DELIVERY_TRANSPORT,
          useFactory: (policies: MtaStsRepository, counts: TlsSessionCounts | null) => createDeliveryTransport(config, policies, counts ?? undefined),
          inject: [MtaStsRepository, TLS_SESSION_COUNTS],
        },
        { provide: TRACKING_TOKENS, useFactory: () => trackingTokensFromConfig(config, (message) => new Logger('TrackingTokens').warn(message)) },
        DeliveryRepository,
        MtaStsRepository,
        MtaStsPurger,
        TlsrptRepository,
        // Purged with TLSRPT=off too: rows left from when it was on.
        TlsrptPurger,
        ...(tlsReporting ? [TlsrptFlusher, TlsrptReporter] : []),
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
