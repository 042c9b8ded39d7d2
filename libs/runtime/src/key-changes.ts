import { Logger } from '@nestjs/common';
import { KeysEvents } from '@mailroom/contracts';
import { Events, JSONCodec, NatsConnection } from 'nats';

const codec = JSONCodec<{ data?: { keyId?: string } }>();

/**
 * Tells a cache of API keys about every key change, on every replica: the
 * subscription has no queue group, so each process gets each event. After a
 * reconnect a change may have been missed, so the cache is told to drop
 * everything.
 */
export function watchKeyChanges(connection: NatsConnection, cache: { evict(keyId: string): void; clear(): void }, logger: Logger): void {
  connection.subscribe(KeysEvents.changed, {
    callback: (error, message) => {
      if (error) return;
      let keyId: string | undefined;
      try {
        keyId = codec.decode(message.data).data?.keyId;
      } catch {
        // Unreadable, so which key changed is unknown: forget them all.
      }
      if (keyId) cache.evict(keyId);
      else cache.clear();
    },
  });
  void (async () => {
    for await (const status of connection.status()) {
      if (status.type !== Events.Reconnect) continue;
      logger.warn('NATS reconnected; dropping the key cache in case a change was missed');
      cache.clear();
    }
  })();
}
