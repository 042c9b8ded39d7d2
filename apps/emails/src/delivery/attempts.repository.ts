import { Injectable } from '@nestjs/common';
import { EMAIL_LIMITS, normalizeEmailAddress } from '@mailroom/contracts';
import { planOnIndexes, preparedStatements, recordsetJson } from '@mailroom/database';
import { appendEvents, NewEvent } from '@mailroom/outbox';
import { DataSource } from 'typeorm';
import type { ClaimedEmail, RecipientUpdate } from './delivery.repository';
import { ACCEPTED_BY_SERVER, RecipientStatus } from './status-summary';

/** What one attempt at one email did: its recipients' new states, new suppressions and the events to publish. */
export interface AttemptRecord {
  email: ClaimedEmail;
  updates: RecipientUpdate[];
  suppressions: Array<{ address: string; reason: 'bounce' | 'complaint'; details: string }>;
  events: NewEvent[];
  /** The email's status and next attempt from the states of all its recipients, the ones not attempted included. */
  summarize: (recipients: Array<{ status: RecipientStatus; nextAttemptAt: Date | null }>) => { status: string; nextAttemptAt: Date | null; delivered: boolean };
}

/**
 * The emails a record wrote (those whose lease it still held), each with the
 * recipients that took the attempt's outcome: one a report settled while the
 * attempt was in flight is left out, its outcome dropped.
 */
export type RecordedOutcomes = Map<string, Set<string>>;

/**
 * Each recorded email's summary status, next attempt and released lease,
 * and its complaint mark when a recipient complained of while this attempt
 * was in flight was delivered by it (see complaint-mark.ts).
 * Bounded by the ids (`= ANY($2)`) as well as joined on the recordset, as
 * the recipients update is: the recordset is estimated at 100 rows whatever
 * it holds, and on a young emails table the planner hashed it against a
 * full scan of the primary key, every email ever sent read to update five
 * (8–11 ms a batch at 3,000 emails, growing with the table).
 */
export const EMAIL_SUMMARY_UPDATE = `UPDATE emails.emails e
            SET status = s.status, next_attempt_at = s.next_attempt_at, attempts = e.attempts + s.attempted, lease_owner = NULL, lease_expires_at = NULL,
                delivered_at = CASE WHEN s.delivered THEN COALESCE(e.delivered_at, now()) ELSE e.delivered_at END,
                complained_at = COALESCE(e.complained_at, s.complained_at), updated_at = now()
           FROM jsonb_to_recordset($1::jsonb) AS s(id text, status text, next_attempt_at timestamptz, delivered boolean, attempted int, complained_at timestamptz)
          WHERE e.id = s.id AND e.id = ANY($2::text[])`;

/**
 * The recipient's attempt log with this attempt added at the end, the oldest
 * dropped once it holds EMAIL_LIMITS.attemptLogLength (one is added per
 * update, so dropping one keeps it at that length). Only when the update
 * counts an attempt: a recipient found suppressed when its turn came was not
 * tried. In the recipients update itself: no statement or index more per
 * attempt.
 */
const APPEND_TO_ATTEMPT_LOG = `CASE WHEN u.attempts <= r.attempts THEN r.attempt_log
                       ELSE CASE WHEN jsonb_array_length(r.attempt_log) >= ${EMAIL_LIMITS.attemptLogLength} THEN r.attempt_log - 0 ELSE r.attempt_log END
                         || jsonb_build_array(jsonb_build_object('attempt', u.attempts, 'at', now(), 'status', u.status, 'smtpCode', u.smtp_code, 'smtpReply', u.smtp_reply, 'host', u.smtp_host)) END`;

/**
 * Writes attempts in batches: one transaction and a fixed handful of
 * statements for any number of emails, where one email at a time cost a
 * transaction of seven statements each.
 */
@Injectable()
export class AttemptsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Records the attempts of `owner` in one transaction: recipients, new
   * suppressions, each email's summary status and next attempt, the release of
   * its lease, and the events. Fenced on the lease: an email another worker
   * took over (this one stalled past its lease) is left alone — that worker's
   * attempt counts instead. Returns the emails recorded, with the recipients whose outcome was applied.
   */
  async recordAttempts(owner: string, records: AttemptRecord[]): Promise<RecordedOutcomes> {
    if (!records.length) return new Map();
    return this.dataSource.transaction(async (manager) => {
      // Every statement below finds its rows by key. The two updates also name their emails with
      // `= ANY`, so whatever join the planner picks reads only those emails and their recipients.
      await planOnIndexes(manager);
      const sql = preparedStatements(manager);
      // Rows are locked in id order, so two workers recording overlapping emails cannot deadlock.
      const locked: Array<{ id: string }> = await sql.query(
        `SELECT id FROM emails.emails WHERE id = ANY($1::text[]) AND lease_owner = $2 ORDER BY id FOR UPDATE`,
        [records.map((record) => record.email.id), owner],
      );
      const recorded: RecordedOutcomes = new Map(locked.map((row) => [row.id, new Set<string>()]));
      const written = records.filter((record) => recorded.has(record.email.id));
      if (!written.length) return recorded;

      const updates = written.flatMap((record) => record.updates.map((update) => ({ email_id: record.email.id, ...recipientColumns(update) })));
      // Only recipients still waiting take the attempt's outcome: one a bounce report settled while the attempt was in
      // flight (BouncesRepository, under the same email lock) keeps that bounce, and its events here are dropped, so
      // the recipient does not read delivered after the bounce, nor get a second email.bounced.
      // A complaint that came while the attempt was in flight marked only its recipient (ComplaintsRepository):
      // the email is marked once the attempt is written as having reached the reader.
      const complainedAt = new Map<string, Date>();
      if (updates.length) {
        // TypeORM answers an UPDATE … RETURNING on Postgres with [rows, affected count].
        const [rows]: [Array<{ email_id: string; address: string; status: RecipientStatus; complained_at: Date | null }>, number] = await sql.query(
          `UPDATE emails.recipients r
              SET status = u.status, attempts = u.attempts, smtp_code = u.smtp_code, smtp_reply = u.smtp_reply, next_attempt_at = u.next_attempt_at, updated_at = now(),
                  attempt_log = ${APPEND_TO_ATTEMPT_LOG}
             FROM jsonb_to_recordset($1::jsonb) AS u(email_id text, address text, status text, attempts int, smtp_code int, smtp_reply text, smtp_host text, next_attempt_at timestamptz)
            WHERE r.email_id = u.email_id AND r.address = u.address AND r.email_id = ANY($2::text[]) AND r.status IN ('queued', 'deferred')
        RETURNING r.email_id, r.address, r.status, r.complained_at`,
          [recordsetJson(updates), written.map((record) => record.email.id)],
        );
        for (const row of rows) {
          recorded.get(row.email_id)?.add(row.address);
          if (row.complained_at && ACCEPTED_BY_SERVER.includes(row.status)) complainedAt.set(row.email_id, row.complained_at);
        }
      }
      // In (mode, address) order, as the emails above are locked in id order: in the order the batch's emails
      // fell, a transaction adding two of the addresses the other way round (another replica's record) deadlocked
      // with this one, and a record that fails leaves the email to its lease and the message goes out again.
      const suppressions = written
        .flatMap((record) =>
          record.suppressions.map((suppression) => ({ mode: record.email.mode, address: suppression.address, reason: suppression.reason, details: suppression.details.slice(0, 1000) })),
        )
        .sort((a, b) => (a.mode === b.mode ? compareCodeUnits(a.address, b.address) : compareCodeUnits(a.mode, b.mode)));
      if (suppressions.length) {
        await sql.query(
          `INSERT INTO emails.suppressions (mode, address, reason, details)
           SELECT mode, address, reason, details FROM jsonb_to_recordset($1::jsonb) AS s(mode text, address text, reason text, details text)
           ON CONFLICT (mode, address) DO NOTHING`,
          [recordsetJson(suppressions)],
        );
      }
      const recipients: Array<{ email_id: string; status: RecipientStatus; next_attempt_at: Date | null }> = await sql.query(
        `SELECT email_id, status, next_attempt_at FROM emails.recipients WHERE email_id = ANY($1::text[])`,
        [written.map((record) => record.email.id)],
      );
      const byEmail = new Map<string, Array<{ status: RecipientStatus; nextAttemptAt: Date | null }>>();
      for (const row of recipients) {
        const list = byEmail.get(row.email_id) ?? [];
        list.push({ status: row.status, nextAttemptAt: row.next_attempt_at });
        byEmail.set(row.email_id, list);
      }
      const summaries = written.map((record) => {
        const summary = record.summarize(byEmail.get(record.email.id) ?? []);
        return {
          id: record.email.id,
          status: summary.status,
          next_attempt_at: summary.nextAttemptAt,
          delivered: summary.delivered,
          attempted: record.updates.length ? 1 : 0,
          complained_at: complainedAt.get(record.email.id) ?? null,
        };
      });
      await sql.query(EMAIL_SUMMARY_UPDATE, [recordsetJson(summaries), summaries.map((summary) => summary.id)]);
      // An event names its recipient as the sender wrote it; the row is keyed by the address's lower-case form.
      const updatedRecipient = (emailId: string, event: NewEvent) => {
        const { recipient } = event.data as { recipient?: unknown };
        return typeof recipient === 'string' && (recorded.get(emailId)?.has(normalizeEmailAddress(recipient)) ?? false);
      };
      await appendEvents(
        manager,
        'emails',
        written.flatMap((record) => record.events.filter((event) => updatedRecipient(record.email.id, event))),
      );
      return recorded;
    });
  }
}

function recipientColumns(update: RecipientUpdate) {
  return {
    address: update.address,
    status: update.status,
    attempts: update.attempts,
    smtp_code: update.smtpCode,
    smtp_reply: update.smtpReply,
    smtp_host: update.smtpHost,
    next_attempt_at: update.nextAttemptAt,
  };
}

/** Code-unit order, the same on every replica whatever its locale (localeCompare is not). */
function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
