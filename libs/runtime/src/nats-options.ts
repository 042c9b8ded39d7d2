import { CustomStrategy, NatsOptions, Transport } from '@nestjs/microservices';
import { connect, ConnectionOptions, NatsConnection } from 'nats';
import { markAsNatsFailure } from './boot-failure';
import { DrainingNatsServer } from './draining-nats-server';
import { NatsSettings, natsServerAccess } from './nats-authentication';

/**
 * How often a connection pings its server; two pings unanswered and it reconnects (to another server of a
 * cluster), so a server that went silent is left 10 to 15 s after. A NATS node lost, or cut off by a
 * partition, closes nothing (no FIN, no RST), and only these pings tell: at nats.js's default of one every
 * 2 minutes, every app connected to it stayed deaf for 4 to 6 minutes, answering and sending no requests and
 * reading no events, while the cluster's other servers were up. A PONG comes back behind what the server was
 * already sending, which a live client reads within moments, so two missed in a row are a lost server, not a busy one.
 */
export const PING_INTERVAL_MS = 5_000;

/**
 * Options every connection shares. noAsyncTraces: nats.js otherwise creates
 * an Error, capturing a stack trace, at each request() and flush() only to
 * enrich a possible later timeout; on every request that is overhead, and our
 * timeouts already name the service that did not answer.
 */
const CONNECTION_OPTIONS = { maxReconnectAttempts: -1, reconnectTimeWait: 250, noAsyncTraces: true, pingInterval: PING_INTERVAL_MS, maxPingOut: 2 };

/** Every replica of a service subscribes in one queue group, so replicas divide the messages. */
export function natsServerOptions(nats: NatsSettings, queue: string): NatsOptions {
  return {
    transport: Transport.NATS,
    options: { queue, ...natsConnectionOptions(nats) },
  };
}

/** The same subscription, served by a transport that finishes its handlers in flight before it closes. */
export function drainingNatsServer(nats: NatsSettings, queue: string): CustomStrategy {
  return { strategy: new DrainingNatsServer(natsServerOptions(nats, queue).options ?? {}) };
}

export function natsClientOptions(nats: NatsSettings): NatsOptions['options'] {
  return natsConnectionOptions(nats);
}

/** For connections opened with nats.js connect() directly (JetStream publishers and consumers, broadcast subscribers). */
export function natsConnectionOptions(nats: NatsSettings): ConnectionOptions {
  return { ...CONNECTION_OPTIONS, ...natsServerAccess(nats) };
}

/**
 * connect() with those options. Its failure is marked as NATS's, so a boot it
 * stops names the server: nats.js passes TLS errors on from Node as they are.
 */
export async function connectNats(nats: NatsSettings, extra: Partial<ConnectionOptions> = {}): Promise<NatsConnection> {
  try {
    return await connect({ ...extra, ...natsConnectionOptions(nats) });
  } catch (error) {
    throw markAsNatsFailure(error as Error);
  }
}
