import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PlanMethod, planOnIndexes } from '@mailroom/database';
import { addOutboxGaugeSource, outboxOldestUnpublishedAge, outboxUnpublished, ScrapeSnapshot } from '@mailroom/runtime';
import { OUTBOX_SCHEMA } from './outbox-relay';

/**
 * How many rows wait to be published and how old the first of them is, both
 * from the partial index of unpublished rows (outbox_unpublished_idx): the
 * count is an index-only scan and the first row one index entry and one row,
 * so the cost follows the backlog, never the published rows the table keeps
 * for OUTBOX_RETENTION. The first in publishing order (seq) stands for the
 * oldest: created_at is not indexed, and rows are numbered as they are
 * written. Run after planOnIndexes(manager, BACKLOG_PLAN): an outbox
 * autovacuum has not analyzed yet may look small enough to read whole, and
 * the count was otherwise planned as a bitmap scan that visits the row of
 * every index entry.
 */
export function outboxBacklogSql(schema: string): string {
  return `SELECT count(*)::int AS unpublished,
                 EXTRACT(EPOCH FROM now() - (SELECT created_at FROM ${schema}.outbox WHERE published_at IS NULL ORDER BY seq LIMIT 1))::float8 AS oldest_seconds
            FROM ${schema}.outbox WHERE published_at IS NULL`;
}

/** Switched off with sequential scans for outboxBacklogSql, leaving the index-only count. */
export const BACKLOG_PLAN: readonly PlanMethod[] = ['bitmapscan'];

export interface OutboxBacklog {
  unpublished: number;
  /** 0 when nothing waits. */
  oldestSeconds: number;
}

export function readOutboxBacklog(dataSource: DataSource, schema: string): Promise<OutboxBacklog> {
  return dataSource.transaction(async (manager) => {
    await planOnIndexes(manager, BACKLOG_PLAN);
    const [row]: Array<{ unpublished: number; oldest_seconds: number | null }> = await manager.query(outboxBacklogSql(schema));
    return { unpublished: row.unpublished, oldestSeconds: Math.max(0, row.oldest_seconds ?? 0) };
  });
}

/**
 * Fills mailroom_outbox_unpublished_events and
 * mailroom_outbox_oldest_unpublished_age_seconds for this service's outbox
 * when Prometheus scrapes, at most once a second (ScrapeSnapshot): a relay
 * that falls behind (NATS down, the stream refusing) shows as both rising.
 */
@Injectable()
export class OutboxMetrics implements OnModuleInit, OnModuleDestroy {
  private readonly snapshot: ScrapeSnapshot;
  private remove?: () => void;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(OUTBOX_SCHEMA) private readonly schema: string,
  ) {
    this.snapshot = new ScrapeSnapshot(() => this.update(), new Logger(OutboxMetrics.name), `the ${schema} outbox`);
  }

  onModuleInit(): void {
    this.remove = addOutboxGaugeSource(this.snapshot);
  }

  onModuleDestroy(): void {
    this.remove?.();
  }

  private async update(): Promise<void> {
    const backlog = await readOutboxBacklog(this.dataSource, this.schema);
    outboxUnpublished.set({ service: this.schema }, backlog.unpublished);
    outboxOldestUnpublishedAge.set({ service: this.schema }, backlog.oldestSeconds);
  }
}
