import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateWebhooksTables1763800000310 implements MigrationInterface {
  name = 'CreateWebhooksTables1763800000310';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE webhooks.webhooks (
        id text PRIMARY KEY,
        mode text NOT NULL CHECK (mode IN ('live', 'test')),
        url text NOT NULL,
        events text[] NOT NULL,
        description text,
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'failing', 'disabled')),
        secret_sealed text NOT NULL,
        previous_secret_sealed text,
        previous_secret_expires_at timestamptz,
        failure_count integer NOT NULL DEFAULT 0,
        failed_deliveries_streak integer NOT NULL DEFAULT 0,
        first_failure_at timestamptz,
        disabled_reason text,
        last_delivery_at timestamptz,
        last_delivery_status text CHECK (last_delivery_status IN ('success', 'failure')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX webhooks_mode_id_idx ON webhooks.webhooks (mode, id DESC)`);
    await queryRunner.query(`
      CREATE TABLE webhooks.deliveries (
        id text PRIMARY KEY,
        webhook_id text NOT NULL REFERENCES webhooks.webhooks (id) ON DELETE CASCADE,
        event_id text NOT NULL,
        event_type text NOT NULL,
        payload jsonb NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'retrying', 'succeeded', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        attempt_limit integer NOT NULL,
        next_attempt_at timestamptz,
        last_response_code integer,
        last_duration_ms integer,
        last_error text,
        lease_owner text,
        lease_expires_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT deliveries_webhook_event_key UNIQUE (webhook_id, event_id)
      )`);
    await queryRunner.query(`CREATE INDEX deliveries_due_idx ON webhooks.deliveries (next_attempt_at) WHERE status IN ('pending', 'retrying')`);
    await queryRunner.query(`CREATE INDEX deliveries_webhook_id_idx ON webhooks.deliveries (webhook_id, id DESC)`);
    await queryRunner.query(`
      CREATE TABLE webhooks.delivery_attempts (
        id bigserial PRIMARY KEY,
        delivery_id text NOT NULL REFERENCES webhooks.deliveries (id) ON DELETE CASCADE,
        attempt integer NOT NULL,
        started_at timestamptz NOT NULL,
        response_code integer,
        duration_ms integer NOT NULL,
        error text
      )`);
    await queryRunner.query(`CREATE INDEX delivery_attempts_delivery_idx ON webhooks.delivery_attempts (delivery_id, attempt)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE webhooks.delivery_attempts`);
    await queryRunner.query(`DROP TABLE webhooks.deliveries`);
    await queryRunner.query(`DROP TABLE webhooks.webhooks`);
  }
}
