import { NatsOptions, Transport } from '@nestjs/microservices';

/** Every replica of a service subscribes in one queue group, so replicas divide the messages. */
export function natsServerOptions(natsUrl: string, queue: string): NatsOptions {
  return {
    transport: Transport.NATS,
    options: { servers: [natsUrl], queue, maxReconnectAttempts: -1, reconnectTimeWait: 250 },
  };
}

export function natsClientOptions(natsUrl: string): NatsOptions['options'] {
  return { servers: [natsUrl], maxReconnectAttempts: -1, reconnectTimeWait: 250 };
}
