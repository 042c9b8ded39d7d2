import { Injectable } from '@nestjs/common';
import { eventDomainOf, type EventEnvelope, reachesEveryMode } from '@mailroom/contracts';
import { DataSource, EntityManager } from 'typeorm';
import { planOnIndexes, preparedStatements, recordsetJson, renewOwnLeasesSql } from '@mailroom/database';
import { returningRows } from '../database/returning-rows';
import { fanOutDeliveryIdSql, fanOutIdPrefix } from './delivery-ids';
import { afterFailure, afterSuccess, DisablePolicy, WebhookHealth } from './status-transitions';

/**
 * The fenced state change of each attempted delivery, and an attempt log row
 * for each delivery it changed. Bounded by the ids (`= ANY($2)`) as well as
 * joined on the recordset: the recordset is estimated at 100 rows whatever
 * it holds, and before autovacuum analyzed a young deliveries table the
 * planner hashed it against a sequential scan of every delivery.
 */
export const ATTEMPTS_RECORD = `WITH r AS (
           SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(id text, owner text, attempt int, started_at timestamptz, status text,
                                                            next_attempt_at timestamptz, response_code int, duration_ms int, error text)),
         updated AS (
           UPDATE webhooks.deliveries d
              SET status = r.status, attempts = d.attempts + 1, next_attempt_at = r.next_attempt_at, last_response_code = r.response_code,
                  last_duration_ms = r.duration_ms, last_error = r.error, lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
             FROM r
            WHERE d.id = r.id AND d.lease_owner = r.owner AND d.id = ANY($2::text[])
            RETURNING d.id)
         INSERT INTO webhooks.delivery_attempts (delivery_id, attempt, started_at, response_code, duration_ms, error)
         SELECT r.id, r.attempt, r.started_at, r.response_code, r.duration_ms, r.error FROM r JOIN updated USING (id)
         RETURNING delivery_id`;

/**
 * Recording attempts locks the webhooks' rows before their deliveries', as
 * deleting a webhook does (WebhooksRepository.delete), so the two cannot
 * deadlock. Both used to take deliveries first and could still deadlock: a
 * delete's DELETE of the deliveries and a batch's UPDATE of them lock the
 * same webhook's rows each in its own order, and a delivery inserted after
 * the delete's first statement and recorded before its last was held by the
 * batch (waiting for the webhook row) while the delete's cascade (holding
 * the webhook row) waited for it. Now whichever takes the webhook row first
 * goes through before the other locks any delivery. KEY SHARE is the weakest
 * row lock: it conflicts only with a delete's FOR UPDATE, not with fan-out's
 * foreign key checks, a PATCH, or the health update below (other batches'
 * included). In id order, as every batch takes them.
 */
export const WEBHOOK_LOCK_ORDER = `SELECT 1 FROM webhooks.webhooks WHERE id = ANY($1::text[]) ORDER BY id FOR KEY SHARE`;

/** A delivery's payload size as JSON: stored since AddDeliveryPayloadBytes, computed for a row inserted before it (NULL). */
const PAYLOAD_BYTES = 'COALESCE(d.payload_bytes, octet_length(d.payload::text))';

/**
 * Claims due deliveries under a lease (DispatchRepository.claimDue); $1 owner,
 * $2 lease ms, $3 limit, $4 per endpoint, $5 held per endpoint, $6 slow
 * endpoints, $7 their room, $8 payload bytes room, $9 one row whatever its size.
 *
 * The byte room is a running total of payload sizes over the candidates in due
 * order: a prefix, so a delivery too large for the room waits (it is not
 * skipped for smaller ones behind it) until the pool has drained and takes it
 * alone. The size is the stored payload_bytes (AddDeliveryPayloadBytes), not
 * octet_length(payload::text) here: this runs on every poll over up to
 * 4 × limit candidates, and serializing each one's jsonb means detoasting it
 * (up to 1 MB apiece). Measured on 4,000 due deliveries of 48 KB among 54,000
 * rows, claiming 128 of 512 candidates: 4.5-7.3 ms before the byte room,
 * 4.0-5.9 ms with the column, 61-66 ms computing it here. The column is an int
 * in the heap tuple the walk of deliveries_due_idx (see leaseQuery) fetches
 * anyway; the plan is unchanged, and the window sum runs over the few
 * candidates only. Rows inserted before the column existed hold NULL (the
 * migration adds it without computing it, so upgrading does not rewrite the
 * table under a lock that stops fan-out and claims): their size is computed
 * here (PAYLOAD_BYTES), which only those still due pay for, and there are few.
 * Left NULL, such a row would be skipped when first in due order (a NULL
 * running total fits no room) and counted as 0 bytes after another.
 * pg_column_size(payload) would be cheap too, but it is the compressed size on
 * disk, not what the dispatcher holds.
 */
export const DELIVERIES_CLAIM = `WITH candidates AS (
         SELECT d.id, d.webhook_id, d.next_attempt_at, ${PAYLOAD_BYTES} AS payload_bytes FROM webhooks.deliveries d
          WHERE d.status IN ('pending', 'retrying') AND d.next_attempt_at <= now()
            AND (d.lease_expires_at IS NULL OR d.lease_expires_at < now())
            AND COALESCE(($5::jsonb ->> d.webhook_id)::int, 0) < CASE WHEN d.webhook_id = ANY($6::text[]) THEN LEAST($7, 1) ELSE $4 END
          ORDER BY d.next_attempt_at
          LIMIT $3 * 4),
       ranked AS (
         SELECT id, webhook_id, next_attempt_at, payload_bytes, webhook_id = ANY($6::text[]) AS slow,
                row_number() OVER (PARTITION BY webhook_id ORDER BY next_attempt_at) AS rank FROM candidates),
       allowed AS (
         SELECT id, next_attempt_at, payload_bytes, slow, row_number() OVER (PARTITION BY slow ORDER BY next_attempt_at) AS nth FROM ranked
          WHERE rank <= CASE WHEN slow THEN 1 ELSE $4 END - COALESCE(($5::jsonb ->> webhook_id)::int, 0)),
       in_order AS (
         SELECT id, next_attempt_at, row_number() OVER due AS position, sum(payload_bytes) OVER due AS running_bytes
           FROM allowed WHERE NOT slow OR nth <= $7
         WINDOW due AS (ORDER BY next_attempt_at, id ROWS UNBOUNDED PRECEDING)),
       chosen AS (
         SELECT id FROM in_order WHERE running_bytes <= $8::bigint OR (position = 1 AND $9::boolean) ORDER BY next_attempt_at, id LIMIT $3),
       locked AS (
         SELECT d.id FROM webhooks.deliveries d
          WHERE d.id IN (SELECT id FROM chosen)
            AND d.status IN ('pending', 'retrying') AND (d.lease_expires_at IS NULL OR d.lease_expires_at < now())
          FOR UPDATE SKIP LOCKED)
       UPDATE webhooks.deliveries d
          SET lease_owner = $1, lease_expires_at = now() + make_interval(secs => $2::double precision / 1000), updated_at = now()
         FROM locked, webhooks.webhooks w
        WHERE d.id = locked.id AND w.id = d.webhook_id
       RETURNING d.id, d.webhook_id, d.event_id, d.payload, ${PAYLOAD_BYTES} AS payload_bytes, d.attempts, d.attempt_limit, w.url, w.status AS webhook_status,
                 w.secret_sealed, w.previous_secret_sealed, w.previous_secret_expires_at`;

/** A due delivery with what sending it needs from its webhook. */
export interface ClaimedDelivery {
  id: string;
  webhookId: string;
  eventId: string;
  payload: EventEnvelope;
  /** The payload's size as JSON (payload_bytes): what the dispatcher's delivery buffer counts. */
  payloadBytes: number;
  attempts: number;
  attemptLimit: number;
  url: string;
  webhookStatus: string;
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretExpiresAt: Date | null;
}

/** The endpoints a dispatcher found slow (each may hold one delivery), and how many more all of them together may hold. */
export interface SlowEndpointsClaim {
  ids: string[];
  room: number;
}

const NO_SLOW_ENDPOINTS: SlowEndpointsClaim = { ids: [], room: 0 };

/** How many payload bytes a claim may take in all, and whether it takes the first due delivery even if it is larger (the dispatcher holds none). */
export interface PayloadBytesClaim {
  room: number;
  atLeastOne: boolean;
}

const ANY_BYTES: PayloadBytesClaim = { room: Number.MAX_SAFE_INTEGER, atLeastOne: true };

export interface AttemptRecord {
  owner: string;
  delivery: ClaimedDelivery;
  startedAt: Date;
  responseCode: number | null;
  durationMs: number;
  error: string | null;
  success: boolean;
  gone: boolean;
  /** False for the dispatcher's own faults (nothing was sent): the webhook's health is left as it is. */
  affectsWebhookHealth: boolean;
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
   * One delivery per matching webhook (same mode, or any for an event of a
   * resource both modes share, subscribed to the type or
   * to `*`, not disabled, and unrestricted or restricted to the event's
   * domain), for a batch of events, in one statement. An event whose domain
   * does not read (domain NULL) reaches unrestricted webhooks only. Ids are
   * one ULID prefix per statement + the row number (delivery-ids.ts): unique
   * however many rows, and time-sortable like every other id.
   * ON CONFLICT makes a redelivered stream message a no-op. Rows are written
   * in (webhook, event) order, the unique key's: a redelivered event can be
   * fanned out by another replica at the same time in another batch order,
   * and two statements taking the same keys in opposite orders deadlocked
   * (one batch failed after deadlock_timeout and went again event by event).
   * Returns how many deliveries were created.
   */
  async fanOut(events: EventEnvelope[], firstDelayMs: number, attemptLimit: number): Promise<number> {
    if (!events.length) return 0;
    const rows: unknown[] = await preparedStatements(this.dataSource).query(
      `WITH incoming AS (
         SELECT e.id, e.type, e.mode, e.every_mode, e.domain, e.payload
           FROM jsonb_to_recordset($1::jsonb) AS e(id text, type text, mode text, every_mode boolean, domain text, payload jsonb))
       INSERT INTO webhooks.deliveries (id, webhook_id, event_id, event_type, payload, status, attempts, attempt_limit, next_attempt_at)
       SELECT ${fanOutDeliveryIdSql('$2::text', 'row_number() OVER ()')}, w.id, i.id, i.type, i.payload, 'pending', 0, $4,
              now() + make_interval(secs => $3::double precision / 1000)
         FROM incoming i
         JOIN webhooks.webhooks w ON (w.mode = i.mode OR i.every_mode) AND w.status <> 'disabled' AND (w.events @> ARRAY[i.type] OR w.events @> ARRAY['*'])
                                 AND (w.domain_restrictions = '{}' OR i.domain = ANY(w.domain_restrictions))
        ORDER BY w.id, i.id
       ON CONFLICT (webhook_id, event_id) DO NOTHING
       RETURNING id`,
      [
        recordsetJson(
          events.map((event) => ({ id: event.id, type: event.type, mode: event.mode, every_mode: reachesEveryMode(event.type), domain: eventDomainOf(event) || null, payload: event })),
        ),
        fanOutIdPrefix(),
        firstDelayMs,
        attemptLimit,
      ],
    );
    return rows.length;
  }

  /**
   * Claims due deliveries under a lease. `held` maps webhook id → deliveries
   * this process already holds for it: an endpoint is never given more than
   * `perEndpoint`, or one if it is slow, and all slow endpoints together no
   * more than `slow.room` (DeliveryPool), so a slow one holds only its own
   * slots and cannot fill the claim with its backlog; and no more payload
   * bytes than `bytes.room` (DELIVERIES_CLAIM). Candidates
   * are read without locks and only the chosen rows are locked (FOR UPDATE
   * SKIP LOCKED, re-checked on the latest row version), so replicas never take
   * the same row, and a claim of a few rows does not lock (and write) the
   * whole candidate window.
   */
  async claimDue(
    owner: string,
    leaseMs: number,
    limit: number,
    perEndpoint: number,
    held: Record<string, number>,
    slow: SlowEndpointsClaim = NO_SLOW_ENDPOINTS,
    bytes: PayloadBytesClaim = ANY_BYTES,
  ): Promise<ClaimedDelivery[]> {
    const rows = returningRows<Record<string, any>>(
      await this.leaseQuery(
      DELIVERIES_CLAIM,
      [owner, leaseMs, limit, perEndpoint, JSON.stringify(held), slow.ids, slow.room, bytes.room, bytes.atLeastOne],
      { walkDueIndex: true },
      ),
    );
    return rows.map((row) => ({
      id: row.id,
      webhookId: row.webhook_id,
      eventId: row.event_id,
      payload: row.payload,
      payloadBytes: row.payload_bytes,
      attempts: row.attempts,
      attemptLimit: row.attempt_limit,
      url: row.url,
      webhookStatus: row.webhook_status,
      secretSealed: row.secret_sealed,
      previousSecretSealed: row.previous_secret_sealed,
      previousSecretExpiresAt: row.previous_secret_expires_at,
    }));
  }

  /** Extends the leases this dispatcher holds while their requests run; answers the ids renewed. */
  async renewLeases(owner: string, ids: string[], leaseMs: number): Promise<string[]> {
    if (!ids.length) return [];
    const renewed = (await this.leaseQuery(renewOwnLeasesSql('webhooks.deliveries'), [owner, ids, leaseMs])) as Array<{ id: string }>;
    return renewed.map((row) => row.id);
  }

  /**
   * Runs a statement that only takes or extends leases, committed without
   * waiting for the WAL flush. A lease lost in a Postgres crash is harmless:
   * the delivery is simply due again (at least once, as always), and the
   * attempt written later is fenced on the lease. Everything else here
   * (fan-out, attempt results) commits durably.
   */
  private leaseQuery(sql: string, parameters: unknown[], options: { walkDueIndex?: boolean } = {}): Promise<unknown> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SET LOCAL synchronous_commit = off');
      // A queue table churns faster than autovacuum analyzes it: with stale
      // statistics (a young table, a sudden backlog) the planner reads every
      // due row through a bitmap and sorts them (13 ms at 17k due rows)
      // instead of walking deliveries_due_idx in order and stopping at the
      // limit (0.5 ms). Only this transaction is affected.
      if (options.walkDueIndex) await manager.query('SET LOCAL enable_bitmapscan = off');
      return preparedStatements(manager).query(sql, parameters);
    });
  }

  /** Gives a claim back without recording an attempt (shutdown), so any replica sends it at once. */
  async releaseLease(owner: string, id: string): Promise<void> {
    await this.dataSource.query(`UPDATE webhooks.deliveries SET lease_owner = NULL, lease_expires_at = NULL WHERE id = $1 AND lease_owner = $2`, [id, owner]);
  }

  /** Gives claims back unsent (deliveries still queued at shutdown, or of an endpoint that turned slow), so any replica sends them at once. */
  async releaseLeases(owner: string, ids: string[]): Promise<void> {
    if (!ids.length) return;
    await this.dataSource.query(`UPDATE webhooks.deliveries SET lease_owner = NULL, lease_expires_at = NULL WHERE id = ANY($1::text[]) AND lease_owner = $2`, [ids, owner]);
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
   * Records a batch of attempts in one transaction (one commit for many
   * deliveries): the attempt log rows, each delivery's new state, and the
   * webhooks' health. Fenced on the lease: an attempt whose delivery another
   * dispatcher took over is not written. Returns the ids that were recorded.
   */
  async recordAttempts(records: AttemptRecord[], policy: DisablePolicy): Promise<Set<string>> {
    if (!records.length) return new Set();
    return this.dataSource.transaction(async (manager) => {
      const states = records.map((record) => ({
        id: record.delivery.id,
        owner: record.owner,
        attempt: record.delivery.attempts + 1,
        started_at: record.startedAt,
        status: record.success ? 'succeeded' : record.nextAttemptAt ? 'retrying' : 'failed',
        next_attempt_at: record.success ? null : record.nextAttemptAt,
        response_code: record.responseCode,
        duration_ms: record.durationMs,
        error: record.error,
      }));
      // Found by key whatever the statistics say (the webhooks' health below too).
      await planOnIndexes(manager);
      await preparedStatements(manager).query(WEBHOOK_LOCK_ORDER, [[...new Set(records.map((record) => record.delivery.webhookId))]]);
      const updated = returningRows<{ delivery_id: string }>(
        await preparedStatements(manager).query(ATTEMPTS_RECORD, [recordsetJson(states), states.map((state) => state.id)]),
      );
      const recorded = new Set(updated.map((row) => row.delivery_id));
      const written = records.filter((record) => recorded.has(record.delivery.id));
      for (const record of healthChanges(written)) await this.updateHealth(manager, record, policy);
      return recorded;
    });
  }

  private async updateHealth(manager: EntityManager, record: AttemptRecord, policy: DisablePolicy): Promise<void> {
    const webhookId = record.delivery.webhookId;
    const sql = preparedStatements(manager);
    if (record.success) {
      // The common case: a healthy webhook. Skip the row lock unless something changes or lastDeliveryAt is stale.
      const changed = returningRows(
        await sql.query(
        `UPDATE webhooks.webhooks SET last_delivery_at = now(), last_delivery_status = 'success', updated_at = now()
          WHERE id = $1 AND status = 'active' AND failure_count = 0
            AND (last_delivery_status IS DISTINCT FROM 'success' OR last_delivery_at IS NULL OR last_delivery_at < now() - make_interval(secs => $2::double precision / 1000))
          RETURNING id`,
        [webhookId, LAST_DELIVERY_REFRESH_MS / 1000],
        ),
      );
      if (changed.length) return;
      const healthy: unknown[] = await sql.query(`SELECT 1 FROM webhooks.webhooks WHERE id = $1 AND status = 'active' AND failure_count = 0`, [webhookId]);
      if (healthy.length) return;
    }
    // NO KEY UPDATE, the lock the UPDATE below takes anyway: FOR UPDATE also blocked every delivery insert
    // for this webhook (its foreign key check takes KEY SHARE) until the batch committed, so event fan-out
    // stalled behind each recorded failure.
    const [row]: WebhookHealthRow[] = await sql.query(
      `SELECT status, failure_count, failed_deliveries_streak, first_failure_at, disabled_reason FROM webhooks.webhooks WHERE id = $1 FOR NO KEY UPDATE`,
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
    await sql.query(
      `UPDATE webhooks.webhooks
          SET status = $2, failure_count = $3, failed_deliveries_streak = $4, first_failure_at = $5, disabled_reason = $6,
              last_delivery_at = now(), last_delivery_status = $7, updated_at = now()
        WHERE id = $1`,
      [webhookId, next.status, next.failureCount, next.failedDeliveriesStreak, next.firstFailureAt, next.disabledReason, record.success ? 'success' : 'failure'],
    );
  }
}

/**
 * The attempts whose health update can change anything, webhook by webhook
 * (sorted by id, so concurrent batches lock webhook rows in the same order
 * and cannot deadlock), each webhook's attempts in the order they finished.
 * A success right after a success of the same webhook changes nothing, and
 * neither does a dispatcher fault (the endpoint was never asked).
 */
function healthChanges(records: AttemptRecord[]): AttemptRecord[] {
  const byWebhook = new Map<string, AttemptRecord[]>();
  for (const record of records) {
    if (!record.affectsWebhookHealth) continue;
    const list = byWebhook.get(record.delivery.webhookId) ?? [];
    const previous = list[list.length - 1];
    if (!(record.success && previous?.success)) list.push(record);
    byWebhook.set(record.delivery.webhookId, list);
  }
  return [...byWebhook.keys()].sort().flatMap((webhookId) => byWebhook.get(webhookId)!);
}
