import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { MailroomConfig } from '@mailroom/config';
import type { ApiKeyResponse, Mode } from '@mailroom/contracts';
import { ChangeAwareCache, MAILROOM_CONFIG, connectNats, watchKeyChanges } from '@mailroom/runtime';
import { NatsConnection } from 'nats';

/**
 * GET /v1/api-keys/{id} answered from memory for KEY_READ_CACHE_TTL_MS.
 * A key is read far more often than it changes, and each change is announced
 * to every replica (watchKeyChanges), so the only answer that can lag is
 * lastUsedAt, recorded by whichever replica took the usage report.
 */
@Injectable()
export class ApiKeyReadCache implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ApiKeyReadCache.name);
  private readonly cache: ChangeAwareCache<ApiKeyResponse>;
  private connection?: NatsConnection;

  constructor(@Inject(MAILROOM_CONFIG) private readonly config: MailroomConfig) {
    this.cache = new ChangeAwareCache(config.KEY_READ_CACHE_TTL_MS, (key) => key.id);
  }

  async onModuleInit(): Promise<void> {
    this.connection = await connectNats(this.config);
    watchKeyChanges(this.connection, this.cache, this.logger);
  }

  async onModuleDestroy(): Promise<void> {
    await this.connection?.drain().catch(() => undefined);
  }

  get(mode: Mode, id: string, load: () => Promise<ApiKeyResponse>): Promise<ApiKeyResponse | null> {
    return this.cache.get(`${mode}:${id}`, load);
  }

  evict(keyId: string): void {
    this.cache.evict(keyId);
  }
}
