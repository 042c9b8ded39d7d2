import { MigrationInterface, QueryRunner } from 'typeorm';
import { outboxTableMigration } from '@mailroom/outbox';

const EMAIL_STATUSES = `'scheduled','queued','sent','delivered','bounced','failed','cancelled','suppressed'`;
const RECIPIENT_STATUSES = `'queued','sent','delivered','bounced','failed','suppressed','deferred'`;

/**
 * The emails service's tables. emails.emails is both the resource and the
 * durable queue: the worker claims due rows with FOR UPDATE SKIP LOCKED and a
 * lease (lease_owner, lease_expires_at), so nothing accepted is ever lost.
 */
export class CreateEmailsTables1763800000210 implements MigrationInterface {
  name = 'CreateEmailsTables1763800000210';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE emails.emails (
        id text PRIMARY KEY,
        mode text NOT NULL CHECK (mode IN ('live', 'test')),
        api_key_id text NOT NULL,
        from_address text NOT NULL,
        from_email text NOT NULL,
        from_domain text NOT NULL,
        "to" text[] NOT NULL,
        to_addresses text[] NOT NULL,
        cc text[] NOT NULL DEFAULT '{}',
        bcc text[] NOT NULL DEFAULT '{}',
        reply_to text[] NOT NULL DEFAULT '{}',
        subject text NOT NULL,
        html text,
        text text,
        headers jsonb NOT NULL DEFAULT '{}',
        attachments jsonb NOT NULL DEFAULT '[]',
        tags text[] NOT NULL DEFAULT '{}',
        metadata jsonb NOT NULL DEFAULT '{}',
        status text NOT NULL CHECK (status IN (${EMAIL_STATUSES})),
        scheduled_at timestamptz,
        next_attempt_at timestamptz,
        lease_owner text,
        lease_expires_at timestamptz,
        attempts int NOT NULL DEFAULT 0,
        message_id text NOT NULL,
        track_opens boolean,
        track_clicks boolean,
        opens int NOT NULL DEFAULT 0,
        clicks int NOT NULL DEFAULT 0,
        first_opened_at timestamptz,
        last_opened_at timestamptz,
        delivered_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // Keyset pagination (newest first) per mode, with and without a status filter.
    await queryRunner.query(`CREATE INDEX emails_mode_id_idx ON emails.emails (mode, id DESC)`);
    await queryRunner.query(`CREATE INDEX emails_mode_status_id_idx ON emails.emails (mode, status, id DESC)`);
    // The `to` filter matches lower-case bare addresses; "to" keeps what the caller wrote.
    await queryRunner.query(`CREATE INDEX emails_to_addresses_idx ON emails.emails USING gin (to_addresses)`);
    await queryRunner.query(`CREATE INDEX emails_tags_idx ON emails.emails USING gin (tags)`);
    // The worker's claim query only ever looks at claimable rows.
    await queryRunner.query(
      `CREATE INDEX emails_due_idx ON emails.emails (next_attempt_at) WHERE status IN ('queued', 'scheduled')`,
    );
    // Domain usage (before a domain is deleted) and domainRestrictions.
    await queryRunner.query(`CREATE INDEX emails_from_domain_status_idx ON emails.emails (from_domain, status)`);

    await queryRunner.query(`
      CREATE TABLE emails.recipients (
        email_id text NOT NULL REFERENCES emails.emails (id) ON DELETE CASCADE,
        address text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('to', 'cc', 'bcc')),
        status text NOT NULL CHECK (status IN (${RECIPIENT_STATUSES})),
        attempts int NOT NULL DEFAULT 0,
        smtp_code int,
        smtp_reply text,
        next_attempt_at timestamptz,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (email_id, address)
      )`);

    await queryRunner.query(`
      CREATE TABLE emails.suppressions (
        mode text NOT NULL CHECK (mode IN ('live', 'test')),
        address text NOT NULL,
        reason text NOT NULL CHECK (reason IN ('bounce', 'complaint', 'manual', 'unsubscribe')),
        details text,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (mode, address)
      )`);
    // Listing suppressions newest first, with the address as tie-breaker and cursor.
    await queryRunner.query(
      `CREATE INDEX suppressions_mode_created_idx ON emails.suppressions (mode, created_at DESC, address DESC)`,
    );

    await queryRunner.query(`
      CREATE TABLE emails.idempotency_keys (
        api_key_id text NOT NULL,
        key text NOT NULL,
        request_hash text NOT NULL,
        response jsonb,
        status_code int,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (api_key_id, key)
      )`);
    await queryRunner.query(`CREATE INDEX idempotency_keys_created_idx ON emails.idempotency_keys (created_at)`);

    for (const statement of outboxTableMigration('emails').up) await queryRunner.query(statement);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const statement of outboxTableMigration('emails').down) await queryRunner.query(statement);
    await queryRunner.query(`DROP TABLE emails.idempotency_keys`);
    await queryRunner.query(`DROP TABLE emails.suppressions`);
    await queryRunner.query(`DROP TABLE emails.recipients`);
    await queryRunner.query(`DROP TABLE emails.emails`);
  }
}
