import { Injectable } from '@nestjs/common';
import type { EventEnvelope } from '@mailroom/contracts';
import { DataSource, EntityManager } from 'typeorm';
import { ulid } from 'ulid';
import { returningRows } from '../database/returning-rows';
import { afterFailure, afterSuccess, DisablePolicy, WebhookHealth } from './status-transitions';

/** A due delivery with what sending it needs from its webhook. */
export interface ClaimedDelivery {
  id: string;
  webhookId: string;
  eventId: string;
  payload: EventEnvelope;
  attempts: number;
  attemptLimit: number;
  url: string;
  webhookStatus: string;
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretExpiresAt: Date | null;
}

export interface AttemptRecord {
  owner: string;
  delivery: ClaimedDelivery;
  startedAt: Date;
  responseCode: number | null;
  durationMs: number;
  error: string | null;
  success: boolean;
  gone: boolean;
  /** Null: no retry left, the delivery has failed for good. */
  nextAttemptAt: Date | null;
}

interface WebhookHealthRow {
  status: WebhookHealth['status'];
  failure_count: number;
  failed_deliveries_streak: number;
  first_failure_at: Date | null;
  disabled_reason: string | null;
  last_delivery_status: string | null;
  last_delivery_at: Date | null;
}

/** A success on an already healthy webhook refreshes lastDeliveryAt at most this often, so a busy endpoint's row is not a hot spot. */
const LAST_DELIVERY_REFRESH_MS = 1000;

@Injectable()
export class DispatchRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * One delivery per matching webhook (same mode, subscribed to the type or
   * to `*`, not disabled), for a batch of events, in one statement. Ids are
   * whd_ + the first 20 characters of one ULID (time + 50 random bits) + a
   * 6-digit row number: unique, and time-sortable like every other id.
   * ON CONFLICT makes a redelivered stream message a no-op. Returns how many
   * deliveries were created.
   */
  async fanOut(events: EventEnvelope[], firstDelayMs: number, attemptLimit: number): Promise<number> {
    if (!events.length) return 0;
    const rows: unknown[] = await this.dataSource.query(
      `WITH incoming AS (
         SELECT e.id, e.type, e.mode, e.payload
           FROM jsonb_to_recordset($1::jsonb) AS e(id text, type text, mode text, payload jsonb))
       INSERT INTO webhooks.deliveries (id, webhook_id, event_id, event_type, payload, status, attempts, attempt_limit, next_attempt_at)
       SELECT 'whd_' || $2::text || lpad(row_number() OVER ()::text, 6, '0') , w.id, i.id, i.type, i.payload, 'pending', 0, $4,
              now() + make_interval(secs => $3::double precision / 1000)
         FROM incoming i
         JOIN webhooks.webhooks w ON w.mode = i.mode AND w.status <> 'disabled' AND (w.events @> ARRAY[i.type] OR w.events @> ARRAY['*'])
       ON CONFLICT (webhook_id, event_id) DO NOTHING
       RETURNING id`,
      [JSON.stringify(events.map((event) => ({ id: event.id, type: event.type, mode: event.mode, payload: event }))), ulid().slice(0, 20), firstDelayMs, attemptLimit],
    );
    return rows.length;
  }

  /**
   * Claims due deliveries (FOR UPDATE SKIP LOCKED, so replicas never take the
   * same row) under a lease. `inFlight` maps webhook id → requests this
   * process already has open to it: an endpoint is never given more than
   * `perEndpoint` at once, so a slow one holds only its own slots.
   */
  async claimDue(owner: string, leaseMs: number, limit: number, perEndpoint: number, inFlight: Record<string, number>): Promise<ClaimedDelivery[]> {
    const rows = returningRows<Record<string, any>>(
      await this.dataSource.query(
      `WITH candidates AS (
         SELECT d.id, d.webhook_id, d.next_attempt_at FROM webhooks.deliveries d
          WHERE d.status IN ('pending', 'retrying') AND d.next_attempt_at <= now()
            AND (d.lease_expires_at IS NULL OR d.lease_expires_at < now())
            AND COALESCE(($5::jsonb ->> d.webhook_id)::int, 0) < $4
          ORDER BY d.next_attempt_at
          LIMIT $3 * 4
          FOR UPDATE SKIP LOCKED),
       ranked AS (
         SELECT id, webhook_id, next_attempt_at, row_number() OVER (PARTITION BY webhook_id ORDER BY next_attempt_at) AS rank FROM candidates),
       chosen AS (
         SELECT id FROM ranked WHERE rank <= $4 - COALESCE(($5::jsonb ->> webhook_id)::int, 0) ORDER BY next_attempt_at LIMIT $3)
       UPDATE webhooks.deliveries d
          SET lease_owner = $1, lease_expires_at = now() + make_interval(secs => $2::double precision / 1000), updated_at = now()
         FROM chosen, webhooks.webhooks w
        WHERE d.id = chosen.id AND w.id = d.webhook_id
       RETURNING d.id, d.webhook_id, d.event_id, d.payload, d.attempts, d.attempt_limit, w.url, w.status AS webhook_status,
                 w.secret_sealed, w.previous_secret_sealed, w.previous_secret_expires_at`,
      [owner, leaseMs, limit, perEndpoint, JSON.stringify(inFlight)],
      ),
    );
    return rows.map((row) => ({
      id: row.id,
      webhookId: row.webhook_id,
      eventId: row.event_id,
      payload: row.payload,
      attempts: row.attempts,
      attemptLimit: row.attempt_limit,
      url: row.url,
      webhookStatus: row.webhook_status,
      secretSealed: row.secret_sealed,
      previousSecretSealed: row.previous_secret_sealed,
      previousSecretExpiresAt: row.previous_secret_expires_at,
    }));
  }

  async renewLeases(owner: string, ids: string[], leaseMs: number): Promise<void> {
    if (!ids.length) return;
    await this.dataSource.query(
      `UPDATE webhooks.deliveries SET lease_expires_at = now() + make_interval(secs => $3::double precision / 1000)
        WHERE id = ANY($2::text[]) AND lease_owner = $1`,
      [owner, ids, leaseMs],
    );
  }

  /** Gives a claim back without recording an attempt (shutdown), so any replica sends it at once. */
  async releaseLease(owner: string, id: string): Promise<void> {
    await this.dataSource.query(`UPDATE webhooks.deliveries SET lease_owner = NULL, lease_expires_at = NULL WHERE id = $1 AND lease_owner = $2`, [id, owner]);
  }

  /** A delivery whose webhook was disabled while it waited: failed without an attempt. */
  async abandon(owner: string, id: string, reason: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE webhooks.deliveries SET status = 'failed', next_attempt_at = NULL, last_error = $3, lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
        WHERE id = $1 AND lease_owner = $2`,
      [id, owner, reason],
    );
  }

  /**
   * Records one attempt in one transaction: the attempt log row, the
   * delivery's new state, and the webhook's health. Fenced on the lease: if
   * another dispatcher took the delivery over, nothing is written.
   */
  async recordAttempt(record: AttemptRecord, policy: DisablePolicy): Promise<boolean> {
    const { delivery } = record;
    return this.dataSource.transaction(async (manager) => {
      const status = record.success ? 'succeeded' : record.nextAttemptAt ? 'retrying' : 'failed';
      const updated = returningRows(
        await manager.query(
        `UPDATE webhooks.deliveries
            SET status = $3, attempts = attempts + 1, next_attempt_at = $4, last_response_code = $5, last_duration_ms = $6, last_error = $7,
                lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
          WHERE id = $1 AND lease_owner = $2
          RETURNING id`,
        [delivery.id, record.owner, status, record.success ? null : record.nextAttemptAt, record.responseCode, record.durationMs, record.error],
        ),
      );
      if (!updated.length) return false;
      await manager.query(
        `INSERT INTO webhooks.delivery_attempts (delivery_id, attempt, started_at, response_code, duration_ms, error) VALUES ($1, $2, $3, $4, $5, $6)`,
        [delivery.id, delivery.attempts + 1, record.startedAt, record.responseCode, record.durationMs, record.error],
      );
      await this.updateHealth(manager, record, policy);
      return true;
    });
  }

  private async updateHealth(manager: EntityManager, record: AttemptRecord, policy: DisablePolicy): Promise<void> {
    const webhookId = record.delivery.webhookId;
    if (record.success) {
      // The common case: a healthy webhook. Skip the row lock unless something changes or lastDeliveryAt is stale.
      const changed = returningRows(
        await manager.query(
        `UPDATE webhooks.webhooks SET last_delivery_at = now(), last_delivery_status = 'success', updated_at = now()
          WHERE id = $1 AND status = 'active' AND failure_count = 0
            AND (last_delivery_status IS DISTINCT FROM 'success' OR last_delivery_at IS NULL OR last_delivery_at < now() - make_interval(secs => $2::double precision / 1000))
          RETURNING id`,
        [webhookId, LAST_DELIVERY_REFRESH_MS / 1000],
        ),
      );
      if (changed.length) return;
      const healthy: unknown[] = await manager.query(`SELECT 1 FROM webhooks.webhooks WHERE id = $1 AND status = 'active' AND failure_count = 0`, [webhookId]);
      if (healthy.length) return;
    }
    const [row]: WebhookHealthRow[] = await manager.query(
      `SELECT status, failure_count, failed_deliveries_streak, first_failure_at, disabled_reason FROM webhooks.webhooks WHERE id = $1 FOR UPDATE`,
      [webhookId],
    );
    if (!row) return;
    const health: WebhookHealth = {
      status: row.status,
      failureCount: row.failure_count,
      failedDeliveriesStreak: row.failed_deliveries_streak,
      firstFailureAt: row.first_failure_at,
      disabledReason: row.disabled_reason,
    };
    const next = record.success
      ? afterSuccess(health)
      : afterFailure(health, { at: record.startedAt, gone: record.gone, deliveryExhausted: record.nextAttemptAt === null }, policy);
    await manager.query(
      `UPDATE webhooks.webhooks
          SET status = $2, failure_count = $3, failed_deliveries_streak = $4, first_failure_at = $5, disabled_reason = $6,
              last_delivery_at = now(), last_delivery_status = $7, updated_at = now()
        WHERE id = $1`,
      [webhookId, next.status, next.failureCount, next.failedDeliveriesStreak, next.firstFailureAt, next.disabledReason, record.success ? 'success' : 'failure'],
    );
  }
}
