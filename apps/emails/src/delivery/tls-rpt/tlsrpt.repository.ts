import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { deleteInBatches, recordsetJson } from '@mailroom/database';
import { CountedSessions } from './tls-session-counts';
import { ReportedPolicy } from './tls-session';

/** A report claimed for sending: its day, domain, id, and the rua it already reached on an earlier try. */
export interface ClaimedReport {
  day: string;
  policyDomain: string;
  reportId: string;
  attempts: number;
  sentTo: string[];
}

/** How long a claim keeps other replicas off a report: far longer than one report's DNS lookup and sends take. */
const CLAIM_MS = 10 * 60_000;

/** Reports claimed per look; the rest wait for the next. */
const CLAIM_BATCH = 20;

interface CountRow {
  policy_type: ReportedPolicy['type'];
  policy_string: string[];
  mx_host: string[];
  result: string;
  receiving_mx_hostname: string;
  receiving_ip: string;
  sessions: string;
}

/** emails.tlsrpt_counts and emails.tlsrpt_reports (see their migration). */
@Injectable()
export class TlsrptRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Adds sessions to the day's counts, in one statement. */
  async addCounts(rows: CountedSessions[]): Promise<void> {
    if (!rows.length) return;
    const records = rows.map((row) => ({
      day: row.day,
      policy_domain: row.policyDomain,
      policy_type: row.policy.type,
      policy_string: row.policy.type === 'sts' ? row.policy.string : [],
      mx_host: row.policy.type === 'sts' ? row.policy.mxHost : [],
      result: row.result,
      receiving_mx_hostname: row.mxHostname,
      receiving_ip: row.ip,
      sessions: row.sessions,
    }));
    await this.dataSource.query(
      `INSERT INTO emails.tlsrpt_counts AS counts (day, policy_domain, policy_type, policy_string, mx_host, result, receiving_mx_hostname, receiving_ip, sessions)
       SELECT day, policy_domain, policy_type, policy_string, mx_host, result, receiving_mx_hostname, receiving_ip, sessions
         FROM jsonb_to_recordset($1::jsonb) AS r(day date, policy_domain text, policy_type text, policy_string text[], mx_host text[], result text,
           receiving_mx_hostname text, receiving_ip text, sessions bigint)
       ON CONFLICT (day, policy_domain, policy_type, policy_string, mx_host, result, receiving_mx_hostname, receiving_ip)
       DO UPDATE SET sessions = counts.sessions + excluded.sessions`,
      [recordsetJson(records)],
    );
  }

  /** Makes a report due for every policy domain with counts on a day up to `lastDay` that has none yet. */
  async openReports(lastDay: string): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO emails.tlsrpt_reports (day, policy_domain, report_id)
       SELECT DISTINCT day, policy_domain, gen_random_uuid()::text FROM emails.tlsrpt_counts WHERE day <= $1::date
       ON CONFLICT (day, policy_domain) DO NOTHING`,
      [lastDay],
    );
  }

  /**
   * Claims reports due and not claimed by a live claim, counting the attempt: one replica gets each (SKIP LOCKED,
   * then the claim keeps the others off while it sends).
   */
  async claimDue(): Promise<ClaimedReport[]> {
    // TypeORM answers an UPDATE on Postgres with [rows, affected count].
    const [rows]: [Array<{ day: string; policy_domain: string; report_id: string; attempts: number; sent_to: string[] }>, number] = await this.dataSource.query(
      `UPDATE emails.tlsrpt_reports AS report SET claimed_until = now() + make_interval(secs => $1::double precision / 1000), attempts = report.attempts + 1
        WHERE (day, policy_domain) IN (
          SELECT day, policy_domain FROM emails.tlsrpt_reports
           WHERE state = 'due' AND next_attempt_at <= now() AND (claimed_until IS NULL OR claimed_until < now())
           ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING to_char(day, 'YYYY-MM-DD') AS day, policy_domain, report_id, attempts, sent_to`,
      [CLAIM_MS, CLAIM_BATCH],
    );
    return rows.map((row) => ({ day: row.day, policyDomain: row.policy_domain, reportId: row.report_id, attempts: row.attempts, sentTo: row.sent_to }));
  }

  /** The day's counts of one policy domain. */
  async countsOf(day: string, policyDomain: string): Promise<CountedSessions[]> {
    const rows: CountRow[] = await this.dataSource.query(
      `SELECT policy_type, policy_string, mx_host, result, receiving_mx_hostname, receiving_ip, sessions FROM emails.tlsrpt_counts
        WHERE day = $1::date AND policy_domain = $2 ORDER BY policy_type, policy_string, result, receiving_mx_hostname, receiving_ip`,
      [day, policyDomain],
    );
    return rows.map((row) => ({
      day,
      policyDomain,
      policy: row.policy_type === 'sts' ? { type: 'sts', string: row.policy_string, mxHost: row.mx_host } : { type: 'no-policy-found' },
      result: row.result,
      mxHostname: row.receiving_mx_hostname,
      ip: row.receiving_ip,
      sessions: Number(row.sessions),
    }));
  }

  /**
   * The report is done: sent to every rua, dropped after its last try, the domain asks for none (`no-record`), or its
   * only rua were mailto: ones it could not be mailed signed to (`skipped`).
   */
  async finish(report: ClaimedReport, state: 'sent' | 'no-record' | 'dropped' | 'skipped', sentTo: string[]): Promise<void> {
    await this.dataSource.query(`UPDATE emails.tlsrpt_reports SET state = $3, sent_to = $4, claimed_until = NULL WHERE day = $1::date AND policy_domain = $2`, [
      report.day,
      report.policyDomain,
      state,
      sentTo,
    ]);
  }

  /** Some rua did not take the report: it is tried again after `retryInMs`, at the rua not yet reached. */
  async retryLater(report: ClaimedReport, sentTo: string[], retryInMs: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE emails.tlsrpt_reports SET sent_to = $3, claimed_until = NULL, next_attempt_at = now() + make_interval(secs => $4::double precision / 1000)
        WHERE day = $1::date AND policy_domain = $2`,
      [report.day, report.policyDomain, sentTo, retryInMs],
    );
  }

  /** Drops counts and reports of days before `firstKeptDay`. */
  async purgeBefore(firstKeptDay: string): Promise<number> {
    const reports = await deleteInBatches(this.dataSource, { table: 'emails.tlsrpt_reports', key: 'day, policy_domain', orderBy: 'day', where: 'day < $1::date', parameters: [firstKeptDay] });
    const counts = await deleteInBatches(this.dataSource, {
      table: 'emails.tlsrpt_counts',
      key: 'day, policy_domain, policy_type, policy_string, mx_host, result, receiving_mx_hostname, receiving_ip',
      orderBy: 'day',
      where: 'day < $1::date',
      parameters: [firstKeptDay],
    });
    return reports + counts;
  }
}
