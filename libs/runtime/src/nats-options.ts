import { CustomStrategy, NatsOptions, Transport } from '@nestjs/microservices';
import { DrainingNatsServer } from './draining-nats-server';

/** Every replica of a service subscribes in one queue group, so replicas divide the messages. */
export function natsServerOptions(natsUrl: string, queue: string): NatsOptions {
  return {
    transport: Transport.NATS,
    options: { servers: [natsUrl], queue, maxReconnectAttempts: -1, reconnectTimeWait: 250 },
  };
}

/** The same subscription, served by a transport that finishes its handlers in flight before it closes. */
export function drainingNatsServer(natsUrl: string, queue: string): CustomStrategy {
  return { strategy: new DrainingNatsServer(natsServerOptions(natsUrl, queue).options ?? {}) };
}

export function natsClientOptions(natsUrl: string): NatsOptions['options'] {
  return { servers: [natsUrl], maxReconnectAttempts: -1, reconnectTimeWait: 250 };
}
