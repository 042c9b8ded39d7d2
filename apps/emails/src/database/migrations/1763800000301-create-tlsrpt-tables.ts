import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * TLS reporting (RFC 8460) as a sending MTA. tlsrpt_counts: the SMTP sessions of mx delivery per UTC day, recipient
 * (policy) domain, MTA-STS policy that applied and result (`success`, or an RFC 8460 §4.3 result type with the MX
 * host and address), added to by every emails worker from the counts it holds in memory. tlsrpt_reports: one row per
 * day and policy domain once its report is due, which a worker claims (claimed_until) to send it, so several
 * replicas send each report once; it keeps the report id, what was sent where, and the retries.
 */
export class CreateTlsrptTables1763800000301 implements MigrationInterface {
  name = 'CreateTlsrptTables1763800000301';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE emails.tlsrpt_counts (
        day date NOT NULL,
        policy_domain text NOT NULL,
        policy_type text NOT NULL CHECK (policy_type IN ('sts', 'no-policy-found')),
        policy_string text[] NOT NULL,
        mx_host text[] NOT NULL,
        result text NOT NULL,
        receiving_mx_hostname text NOT NULL,
        receiving_ip text NOT NULL,
        sessions bigint NOT NULL CHECK (sessions > 0),
        PRIMARY KEY (day, policy_domain, policy_type, policy_string, mx_host, result, receiving_mx_hostname, receiving_ip)
      )`);
    await queryRunner.query(`
      CREATE TABLE emails.tlsrpt_reports (
        day date NOT NULL,
        policy_domain text NOT NULL,
        report_id text NOT NULL UNIQUE,
        state text NOT NULL DEFAULT 'due' CHECK (state IN ('due', 'sent', 'no-record', 'dropped')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        claimed_until timestamptz,
        sent_to text[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (day, policy_domain)
      )`);
    await queryRunner.query(`CREATE INDEX tlsrpt_reports_due ON emails.tlsrpt_reports (next_attempt_at) WHERE state = 'due'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE emails.tlsrpt_reports');
    await queryRunner.query('DROP TABLE emails.tlsrpt_counts');
  }
}
