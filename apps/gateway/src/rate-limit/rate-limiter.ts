import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { MailroomConfig } from '@mailroom/config';
import { decodeConsumptionReport, encodeConsumptionReport, GatewayEvents } from '@mailroom/contracts';
import { MAILROOM_CONFIG, connectNats, RepeatedFailureLog } from '@mailroom/runtime';
import { randomUUID } from 'node:crypto';
import { NatsConnection } from 'nats';
import { TokenBuckets } from './token-bucket';

/**
 * Keys per consumption report, about 35 bytes each: a report stays far below
 * NATS's 1 MB max_payload however many keys a replica served in one interval.
 * Sent as one message, the report of some 30,000 keys was refused by nats.js
 * with a throw from the sync timer, which ended the gateway process.
 */
const KEYS_PER_REPORT = 1000;

/**
 * The per-key limit, shared across gateway replicas. Each replica decides
 * locally (no round trip per request) and broadcasts what it let through
 * every RATE_LIMIT_SYNC_MS; the others deduct it from their buckets. This is
 * an approximation: until a report arrives each replica spends its own bucket,
 * so a key bursting at N replicas at once gets up to N bursts through, which
 * the reports then make it pay back (down to minus a burst per bucket).
 */
@Injectable()
export class RateLimiter implements OnModuleInit, OnModuleDestroy {
  readonly buckets: TokenBuckets;
  private readonly logger = new Logger(RateLimiter.name);
  private readonly reportFailures = new RepeatedFailureLog(this.logger, 'Sharing what this replica let through (gateway.rate-limit.consumed)');
  private readonly replica = randomUUID();
  private pending = new Map<string, number>();
  private connection?: NatsConnection;
  private timer?: NodeJS.Timeout;

  constructor(@Inject(MAILROOM_CONFIG) private readonly config: MailroomConfig) {
    this.buckets = new TokenBuckets(config.RATE_LIMIT_PER_SECOND, config.RATE_LIMIT_BURST);
  }

  async onModuleInit(): Promise<void> {
    this.connection = await connectNats(this.config);
    this.connection.subscribe(GatewayEvents.rateLimitConsumed, {
      callback: (error, message) => {
        if (error) return;
        const report = decodeConsumptionReport(message.data);
        if (!report || report.replica === this.replica) return;
        for (const [key, count] of Object.entries(report.counts)) this.buckets.consumeElsewhere(key, count);
      },
    });
    this.timer = setInterval(() => this.sync(), this.config.RATE_LIMIT_SYNC_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    this.sync();
    await this.connection?.drain().catch(() => undefined);
  }

  take(keyId: string) {
    const result = this.buckets.take(keyId);
    if (result.allowed) this.pending.set(keyId, (this.pending.get(keyId) ?? 0) + 1);
    return result;
  }

  private sync(): void {
    this.buckets.prune();
    if (!this.pending.size || !this.connection || this.connection.isClosed()) return;
    const counts = [...this.pending];
    this.pending = new Map();
    try {
      for (let start = 0; start < counts.length; start += KEYS_PER_REPORT) {
        const report = { replica: this.replica, counts: Object.fromEntries(counts.slice(start, start + KEYS_PER_REPORT)) };
        this.connection.publish(GatewayEvents.rateLimitConsumed, encodeConsumptionReport(report));
      }
      this.reportFailures.succeeded();
    } catch (error) {
      // Thrown from a timer it would end the process. What the others did not hear, they do not deduct: the limit
      // holds per replica meanwhile, as while NATS is away.
      this.reportFailures.failed(error);
    }
  }
}
