import { Logger } from '@nestjs/common';
import { DomainBroadcasts, KeysEvents } from '@mailroom/contracts';
import { Events, JSONCodec, NatsConnection } from 'nats';
import { NatsSettings } from './nats-authentication';
import { connectNats } from './nats-options';

const codec = JSONCodec<{ data?: Record<string, unknown> }>();

/** A cache that forgets one entry when told it changed, and everything when it cannot know what did. */
export interface EvictableCache {
  evict(id: string): void;
  clear(): void;
}

/**
 * Tells a cache about every change announced on `subject`, on every replica:
 * the subscription has no queue group, so each process gets each event. The
 * event's data names the entry in `field`. After a reconnect a change may have
 * been missed, so the cache is told to drop everything.
 */
export function watchEvictions(connection: NatsConnection, subject: string, field: string, cache: EvictableCache, logger: Logger, cacheName: string): void {
  connection.subscribe(subject, {
    callback: (error, message) => {
      if (error) return;
      let id: unknown;
      try {
        id = codec.decode(message.data).data?.[field];
      } catch {
        // Unreadable, so which entry changed is unknown: forget them all.
      }
      if (typeof id === 'string' && id) cache.evict(id);
      else cache.clear();
    },
  });
  void (async () => {
    for await (const status of connection.status()) {
      if (status.type !== Events.Reconnect) continue;
      logger.warn(`NATS reconnected; dropping the ${cacheName} in case a change was missed`);
      cache.clear();
    }
  })();
}

/** Tells a cache of API keys about every key change (`api-key.changed`, by key id). */
export function watchKeyChanges(connection: NatsConnection, cache: EvictableCache, logger: Logger): void {
  watchEvictions(connection, KeysEvents.changed, 'keyId', cache, logger, 'key cache');
}

/**
 * Tells a cache of sender identities about every deleted domain
 * (`sending-domain.deleted`, by domain name), on a connection of its own:
 * start it when the module starts, stop it when it is destroyed.
 */
export class DomainDeletionWatch {
  private connection?: NatsConnection;

  constructor(
    private readonly nats: NatsSettings,
    private readonly cache: EvictableCache,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    this.connection = await connectNats(this.nats);
    watchEvictions(this.connection, DomainBroadcasts.deleted, 'name', this.cache, this.logger, 'sender identity cache');
  }

  async stop(): Promise<void> {
    await this.connection?.drain().catch(() => undefined);
  }
}
