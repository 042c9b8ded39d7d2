import { Injectable } from '@nestjs/common';
import { appendEvents, NewEvent } from '@mailroom/outbox';
import { DataSource, EntityManager } from 'typeorm';
import { OutgoingEmail } from './message/outgoing-email';
import { RecipientStatus } from './status-summary';

export interface ClaimedEmail extends OutgoingEmail {
  /** 'scheduled' when this claim moved it to 'queued'. */
  previousStatus: string;
  attempts: number;
  deliveredAt: Date | null;
  /** Per-email tracking overrides; null follows the domain's switches. */
  trackOpens: boolean | null;
  trackClicks: boolean | null;
}

export interface DueRecipient {
  address: string;
  kind: 'to' | 'cc' | 'bcc';
  status: RecipientStatus;
  attempts: number;
}

export interface RecipientUpdate {
  address: string;
  status: RecipientStatus;
  attempts: number;
  smtpCode: number | null;
  smtpReply: string | null;
  nextAttemptAt: Date | null;
}

interface EmailRow {
  id: string;
  mode: 'live' | 'test';
  from_address: string;
  from_email: string;
  from_domain: string;
  to: string[];
  cc: string[];
  bcc: string[];
  reply_to: string[];
  subject: string;
  html: string | null;
  text: string | null;
  headers: Record<string, string>;
  attachments: OutgoingEmail['attachments'];
  tags: string[];
  message_id: string;
  attempts: number;
  delivered_at: Date | null;
  previous_status: string;
  track_opens: boolean | null;
  track_clicks: boolean | null;
}

function toClaimed(row: EmailRow): ClaimedEmail {
  return {
    id: row.id,
    mode: row.mode,
    fromAddress: row.from_address,
    fromEmail: row.from_email,
    fromDomain: row.from_domain,
    to: row.to,
    cc: row.cc,
    bcc: row.bcc,
    replyTo: row.reply_to,
    subject: row.subject,
    html: row.html,
    text: row.text,
    headers: row.headers,
    attachments: row.attachments,
    tags: row.tags,
    messageId: row.message_id,
    attempts: row.attempts,
    deliveredAt: row.delivered_at,
    previousStatus: row.previous_status,
    trackOpens: row.track_opens,
    trackClicks: row.track_clicks,
  };
}

/** The emails waiting for delivery, for the queue metrics. */
export interface QueueSnapshot {
  /** Due now: waiting for a worker, or being delivered. */
  due: number;
  /** Scheduled for later (scheduledAt in the future). */
  scheduled: number;
  /** Waiting for a retry after a temporary failure. */
  deferred: number;
  /** How long the oldest due email has been due; 0 when none is. */
  oldestDueSeconds: number;
}

/** The worker's queries: claiming due emails, and recording what each attempt did. */
@Injectable()
export class DeliveryRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Claims up to `limit` due emails for `owner` until the lease runs out
   * (FOR UPDATE SKIP LOCKED, so replicas never claim the same row). A row
   * whose lease expired — its worker crashed — is claimable again. A scheduled
   * email becomes queued here, at its time and not before (the database clock
   * decides, so every replica agrees).
   */
  async claimDue(owner: string, leaseMs: number, limit: number, onClaim: (manager: EntityManager, claimed: ClaimedEmail[]) => Promise<void>): Promise<ClaimedEmail[]> {
    return this.dataSource.transaction(async (manager) => {
      const result: [EmailRow[], number] = await manager.query(
        `WITH due AS (
           SELECT id, status AS previous_status FROM emails.emails
            WHERE status IN ('queued', 'scheduled') AND next_attempt_at <= now()
              AND (lease_expires_at IS NULL OR lease_expires_at < now())
            ORDER BY next_attempt_at
            LIMIT $3
            FOR UPDATE SKIP LOCKED)
         UPDATE emails.emails e
            SET lease_owner = $1, lease_expires_at = now() + make_interval(secs => $2::double precision / 1000),
                status = 'queued', updated_at = now()
           FROM due WHERE e.id = due.id
         RETURNING e.*, due.previous_status`,
        [owner, leaseMs, limit],
      );
      // TypeORM answers an UPDATE … RETURNING on Postgres with [rows, affected count].
      const claimed = result[0].map(toClaimed);
      if (claimed.length) await onClaim(manager, claimed);
      return claimed;
    });
  }

  /**
   * The queue in one statement over emails_due_idx, the partial index of the
   * claimable rows: its cost follows the backlog, never the size of the table.
   */
  async queueSnapshot(): Promise<QueueSnapshot> {
    const [row]: Array<{ due: string; scheduled: string; deferred: string; oldest_due_seconds: number | null }> = await this.dataSource.query(
      `SELECT count(*) FILTER (WHERE next_attempt_at <= now()) AS due,
              count(*) FILTER (WHERE next_attempt_at > now() AND status = 'scheduled') AS scheduled,
              count(*) FILTER (WHERE next_attempt_at > now() AND status = 'queued') AS deferred,
              EXTRACT(EPOCH FROM now() - min(next_attempt_at) FILTER (WHERE next_attempt_at <= now()))::float8 AS oldest_due_seconds
         FROM emails.emails
        WHERE status IN ('queued', 'scheduled')`,
    );
    return {
      due: Number(row.due),
      scheduled: Number(row.scheduled),
      deferred: Number(row.deferred),
      oldestDueSeconds: Math.max(0, row.oldest_due_seconds ?? 0),
    };
  }

  /** Extends the leases this worker still holds, so a long delivery is not taken over while it runs. */
  async renewLeases(owner: string, ids: string[], leaseMs: number): Promise<void> {
    if (!ids.length) return;
    await this.dataSource.query(
      `UPDATE emails.emails SET lease_expires_at = now() + make_interval(secs => $3::double precision / 1000)
        WHERE id = ANY($2::text[]) AND lease_owner = $1`,
      [owner, ids, leaseMs],
    );
  }

  /** Gives up a claim without recording an attempt (shutdown), so another worker can take it at once. */
  async releaseLease(owner: string, id: string): Promise<void> {
    await this.dataSource.query(`UPDATE emails.emails SET lease_owner = NULL, lease_expires_at = NULL WHERE id = $1 AND lease_owner = $2`, [id, owner]);
  }

  /** Recipients still waiting whose time has come (a deferred one waits for its own next_attempt_at). */
  async dueRecipients(emailId: string): Promise<DueRecipient[]> {
    return this.dataSource.query(
      `SELECT address, kind, status, attempts FROM emails.recipients
        WHERE email_id = $1 AND status IN ('queued', 'deferred') AND (next_attempt_at IS NULL OR next_attempt_at <= now() + interval '50 milliseconds')
        ORDER BY address`,
      [emailId],
    );
  }

  async suppressedAmong(mode: string, addresses: string[]): Promise<Set<string>> {
    if (!addresses.length) return new Set();
    const rows: Array<{ address: string }> = await this.dataSource.query(
      `SELECT address FROM emails.suppressions WHERE mode = $1 AND address = ANY($2::text[])`,
      [mode, addresses],
    );
    return new Set(rows.map((row) => row.address));
  }

  /**
   * Records one attempt in one transaction: the recipients' new states, new
   * suppressions, the email's summary status and next attempt, the release of
   * the lease, and the events. Fenced on the lease: if another worker took the
   * email over (this one stalled past its lease), nothing is written and false
   * is returned — that worker's attempt counts instead.
   */
  async recordAttempt(input: {
    owner: string;
    email: ClaimedEmail;
    updates: RecipientUpdate[];
    suppressions: Array<{ address: string; reason: 'bounce' | 'complaint'; details: string }>;
    summarize: (statuses: Array<{ status: RecipientStatus; nextAttemptAt: Date | null }>) => { status: string; nextAttemptAt: Date | null; delivered: boolean };
    events: NewEvent[];
  }): Promise<boolean> {
    const { owner, email } = input;
    return this.dataSource.transaction(async (manager) => {
      const locked: unknown[] = await manager.query(`SELECT id FROM emails.emails WHERE id = $1 AND lease_owner = $2 FOR UPDATE`, [email.id, owner]);
      if (!locked.length) return false;
      for (const update of input.updates) {
        await manager.query(
          `UPDATE emails.recipients SET status = $3, attempts = $4, smtp_code = $5, smtp_reply = $6, next_attempt_at = $7, updated_at = now()
            WHERE email_id = $1 AND address = $2`,
          [email.id, update.address, update.status, update.attempts, update.smtpCode, update.smtpReply, update.nextAttemptAt],
        );
      }
      for (const suppression of input.suppressions) {
        await manager.query(
          `INSERT INTO emails.suppressions (mode, address, reason, details) VALUES ($1, $2, $3, $4) ON CONFLICT (mode, address) DO NOTHING`,
          [email.mode, suppression.address, suppression.reason, suppression.details.slice(0, 1000)],
        );
      }
      const all: Array<{ status: RecipientStatus; next_attempt_at: Date | null }> = await manager.query(
        `SELECT status, next_attempt_at FROM emails.recipients WHERE email_id = $1`,
        [email.id],
      );
      const summary = input.summarize(all.map((row) => ({ status: row.status, nextAttemptAt: row.next_attempt_at })));
      await manager.query(
        `UPDATE emails.emails
            SET status = $2, next_attempt_at = $3, attempts = attempts + $5, lease_owner = NULL, lease_expires_at = NULL,
                delivered_at = CASE WHEN $4::boolean THEN COALESCE(delivered_at, now()) ELSE delivered_at END, updated_at = now()
          WHERE id = $1`,
        [email.id, summary.status, summary.nextAttemptAt, summary.delivered, input.updates.length ? 1 : 0],
      );
      await appendEvents(manager, 'emails', input.events);
      return true;
    });
  }
}
