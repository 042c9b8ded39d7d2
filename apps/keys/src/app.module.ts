import { DynamicModule, Module } from '@nestjs/common';
import { ClientsModule, Transport } from '@nestjs/microservices';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { MailroomConfig } from '@mailroom/config';
import { healthController, MailroomConfigModule, natsClientOptions, serviceDatabaseModule } from '@mailroom/runtime';
import { ApiKeyReadCache } from './api-keys/api-key-read-cache';
import { ApiKeysController } from './api-keys/api-keys.controller';
import { ApiKeysRepository } from './api-keys/api-keys.repository';
import { ApiKeysService, KEYS_EVENTS_CLIENT } from './api-keys/api-keys.service';
import { KEYS_SCHEMA } from './database/data-source';
import { ApiKeyEntity } from './database/entities/api-key.entity';

@Module({})
export class KeysAppModule {
  static forRoot(config: MailroomConfig): DynamicModule {
    return {
      module: KeysAppModule,
      imports: [
        MailroomConfigModule.forRoot(config),
        serviceDatabaseModule(config, KEYS_SCHEMA),
        TypeOrmModule.forFeature([ApiKeyEntity]),
        ClientsModule.register([{ name: KEYS_EVENTS_CLIENT, transport: Transport.NATS, options: natsClientOptions(config) }]),
      ],
      controllers: [ApiKeysController, healthController('keys')],
      providers: [ApiKeysRepository, ApiKeysService, ApiKeyReadCache],
    };
  }
}
