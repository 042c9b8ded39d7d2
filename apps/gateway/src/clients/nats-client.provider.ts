import { ClientsModule, Transport } from '@nestjs/microservices';
import type { MailroomConfig } from '@mailroom/config';
import { natsClientOptions } from '@mailroom/runtime';

export const NATS_CLIENT = Symbol('NatsClient');

/** One NATS connection for every typed client of the gateway; Nest closes it on shutdown. */
export function natsClientModule(config: MailroomConfig) {
  return ClientsModule.register([{ name: NATS_CLIENT, transport: Transport.NATS, options: natsClientOptions(config) }]);
}
