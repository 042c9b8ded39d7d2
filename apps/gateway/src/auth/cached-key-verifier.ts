import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { MailroomConfig } from '@mailroom/config';
import { KeysEvents, VerifiedApiKey } from '@mailroom/contracts';
import type { ApiKeyVerifier } from '@mailroom/auth';
import { MAILROOM_CONFIG, natsConnectionOptions } from '@mailroom/runtime';
import { connect, Events, JSONCodec, NatsConnection } from 'nats';
import { KeysClient } from '../clients/keys.client';

interface CacheEntry {
  key: VerifiedApiKey;
  expiresAt: number;
}

/**
 * Caches verified keys per gateway replica, so a cache hit costs no NATS
 * round trip. Every replica subscribes (without a queue group) to key
 * changes and evicts at once; after a NATS reconnect, when a change could
 * have been missed, the whole cache is dropped. Uses are counted here and
 * flushed in batches, so lastUsedAt costs no write per request.
 */
@Injectable()
export class CachedKeyVerifier implements ApiKeyVerifier, OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(CachedKeyVerifier.name);
  private readonly cache = new Map<string, CacheEntry>();
  private readonly used = new Set<string>();
  /**
   * Bumped on every eviction. A lookup that was in flight while a key changed
   * may carry the old answer, so it is used for that request but not cached.
   */
  private generation = 0;
  private connection?: NatsConnection;
  private flushTimer?: NodeJS.Timeout;

  constructor(
    private readonly keys: KeysClient,
    @Inject(MAILROOM_CONFIG) private readonly config: MailroomConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    this.connection = await connect(natsConnectionOptions(this.config.NATS_URL));
    const codec = JSONCodec<{ data?: { keyId?: string } }>();
    this.connection.subscribe(KeysEvents.changed, {
      callback: (error, message) => {
        if (error) return;
        const keyId = codec.decode(message.data).data?.keyId;
        if (keyId) this.evict(keyId);
      },
    });
    void this.watchReconnects(this.connection);
    this.flushTimer = setInterval(() => this.flushUses(), this.config.LAST_USED_FLUSH_MS);
    this.flushTimer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.flushTimer);
    this.flushUses();
    await this.connection?.drain().catch(() => undefined);
  }

  async verify(keyHash: string): Promise<VerifiedApiKey | null> {
    const cached = this.cache.get(keyHash);
    if (cached && cached.expiresAt > Date.now()) return cached.key;
    const generation = this.generation;
    const key = await this.keys.verify(keyHash);
    const unchanged = generation === this.generation;
    if (key && unchanged && this.config.KEY_CACHE_TTL_MS > 0) this.cache.set(keyHash, { key, expiresAt: Date.now() + this.config.KEY_CACHE_TTL_MS });
    else this.cache.delete(keyHash);
    return key;
  }

  recordUse(keyId: string): void {
    this.used.add(keyId);
  }

  /**
   * Forgets a key. Called for the broadcast change event, and directly by the
   * replica that served the change: the event travels on another connection
   * than the RPC reply, so it may arrive after the caller's next request.
   */
  evict(keyId: string): void {
    this.generation += 1;
    for (const [hash, entry] of this.cache) if (entry.key.keyId === keyId) this.cache.delete(hash);
  }

  private flushUses(): void {
    if (!this.used.size) return;
    const keyIds = [...this.used];
    this.used.clear();
    this.keys.reportUsed({ keyIds, usedAt: new Date().toISOString() });
  }

  private async watchReconnects(connection: NatsConnection): Promise<void> {
    for await (const status of connection.status()) {
      if (status.type === Events.Reconnect) {
        this.logger.warn('NATS reconnected; dropping the key cache in case a change was missed');
        this.generation += 1;
        this.cache.clear();
      }
    }
  }
}
