import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { MailroomConfig } from '@mailroom/config';
import { VerifiedApiKey } from '@mailroom/contracts';
import { ApiKeyVerifier, KeyLookup, REVOKED_KEY } from '@mailroom/auth';
import { ChangeAwareCache, EvictableCache, MAILROOM_CONFIG, RepeatedFailureLog, connectNats, watchKeyChanges } from '@mailroom/runtime';
import { NatsConnection } from 'nats';
import { KeysClient } from '../clients/keys.client';
import { SharedLookups } from './shared-lookups';
import { KeyMiss, UnknownKeyMemo } from './unknown-key-memo';

/**
 * Keys per usage report, about 90 bytes each: a report stays far below NATS's
 * 1 MB max_payload however many keys were used, where one too large would be
 * refused every time it was sent again.
 */
const USES_PER_REPORT = 1000;

/** How many unknown key hashes one replica remembers: 10,000 × about 150 bytes. */
const UNKNOWN_KEYS_REMEMBERED = 10_000;

/**
 * Caches verified keys per gateway replica, so a cache hit costs no NATS
 * round trip. Key changes evict at once on every replica (watchKeyChanges).
 * Uses are counted here and flushed in batches, so lastUsedAt costs no write
 * per request; a batch the keys service did not record (none was listening,
 * or its database refused) goes out again with the next. Unknown keys are remembered as unknown for the same TTL, so a
 * client stuck on a deleted key does not cost a lookup per request. Concurrent
 * lookups of one uncached key share a single question to the keys service.
 */
@Injectable()
export class CachedKeyVerifier implements ApiKeyVerifier, EvictableCache, OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(CachedKeyVerifier.name);
  private readonly cache: ChangeAwareCache<VerifiedApiKey>;
  private readonly unknownKeys: UnknownKeyMemo;
  /** keyHash → its lookup in flight. */
  private readonly lookups = new SharedLookups<KeyLookup>();
  private readonly flushFailures = new RepeatedFailureLog(this.logger, 'Reporting API key uses (lastUsedAt)');
  /** keyId → when it was last used (epoch ms), since the last report. */
  private used = new Map<string, number>();
  /** Whether a failed report while shutting down has been logged: once is enough. */
  private closingFailureSaid = false;
  /** Set by the final flush: requests still arrive until the HTTP server closes, after this module is destroyed. */
  private closing = false;
  private connection?: NatsConnection;
  private flushTimer?: NodeJS.Timeout;

  constructor(
    private readonly keys: KeysClient,
    @Inject(MAILROOM_CONFIG) private readonly config: MailroomConfig,
  ) {
    this.cache = new ChangeAwareCache(config.KEY_CACHE_TTL_MS, (key) => key.keyId);
    this.unknownKeys = new UnknownKeyMemo(config.KEY_CACHE_TTL_MS, UNKNOWN_KEYS_REMEMBERED);
  }

  async onModuleInit(): Promise<void> {
    this.connection = await connectNats(this.config);
    watchKeyChanges(this.connection, this, this.logger);
    this.flushTimer = setInterval(() => void this.flushUses(), this.config.LAST_USED_FLUSH_MS);
    this.flushTimer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.flushTimer);
    this.closing = true;
    void this.flushUses();
    await this.connection?.drain().catch(() => undefined);
  }

  async verify(keyHash: string): Promise<KeyLookup> {
    const remembered = this.unknownKeys.recall(keyHash);
    if (remembered !== undefined) return remembered;
    // Nearly every request's key is cached: answered here, without the shared lookup's promises and map (0.5 µs of 0.7).
    const cached = this.cache.peek(keyHash);
    if (cached !== undefined) return cached;
    return this.lookups.share(keyHash, () => this.lookUp(keyHash));
  }

  recordUse(keyId: string): void {
    this.used.set(keyId, Date.now());
    // No timer flushes any more: the KeysClient's connection stays open until the HTTP server has closed.
    if (this.closing) void this.flushUses();
  }

  /**
   * Forgets a key. Called for the broadcast change event, and directly by the
   * replica that served the change: the event travels on another connection
   * than the RPC reply, so it may arrive after the caller's next request.
   */
  evict(keyId: string): void {
    // Which hash a lookup in flight is of says nothing of its key id: none started before a change is joined after it.
    this.lookups.forgetAll();
    this.cache.evict(keyId);
  }

  /** Forgets every key, e.g. after a NATS reconnect during which a change may have been missed. */
  clear(): void {
    this.lookups.forgetAll();
    this.cache.clear();
  }

  private async lookUp(keyHash: string): Promise<KeyLookup> {
    let miss: KeyMiss = null;
    const key = await this.cache.get(keyHash, async () => {
      const reply = await this.keys.verify(keyHash);
      if (reply.revoked) miss = REVOKED_KEY;
      return reply.key;
    });
    if (key !== null) return key;
    this.unknownKeys.remember(keyHash, Date.now(), miss);
    return miss;
  }

  private async flushUses(): Promise<void> {
    if (!this.used.size) return;
    const uses = [...this.used];
    this.used = new Map();
    const reports: Array<Promise<void>> = [];
    for (let start = 0; start < uses.length; start += USES_PER_REPORT) reports.push(this.report(uses.slice(start, start + USES_PER_REPORT)));
    await Promise.all(reports);
  }

  private async report(uses: Array<[keyId: string, at: number]>): Promise<void> {
    const usedAtByKey = Object.fromEntries(uses.map(([keyId, at]) => [keyId, new Date(at).toISOString()]));
    const latest = uses.reduce((max, [, at]) => Math.max(max, at), 0);
    try {
      await this.keys.recordUses({ keyIds: uses.map(([keyId]) => keyId), usedAt: new Date(latest).toISOString(), usedAtByKey });
      this.flushFailures.succeeded();
    } catch (error) {
      this.keepForNextFlush(uses);
      if (!this.closing) return this.flushFailures.failed(error);
      // Ctrl-C on npm start stops every process at once, so the keys service is often gone by the final flush:
      // no fault to raise an error over. What this gateway still holds when it exits is lost, as README says.
      if (!this.closingFailureSaid) this.logger.warn({ err: (error as Error).message }, 'key uses since the last report were not recorded (shutting down)');
      this.closingFailureSaid = true;
    }
  }

  /** Puts back uses that were not recorded; a key used again meanwhile keeps its later use. */
  private keepForNextFlush(uses: Array<[keyId: string, at: number]>): void {
    for (const [keyId, at] of uses) this.used.set(keyId, Math.max(at, this.used.get(keyId) ?? at));
  }
}
