import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency-Keys of POST /v1/webhooks, per API key. The answer stored is
 * the created webhook's id alone: a replay reads the webhook as it is now, so
 * the signing secret stays sealed in webhooks.webhooks and is never copied
 * here (a copy would outlive a rotation, and not be resealed with the others).
 * created_at is indexed for the hourly purge of keys past their 24 hours.
 */
export class CreateWebhookIdempotencyKeys1763800000340 implements MigrationInterface {
  name = 'CreateWebhookIdempotencyKeys1763800000340';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE webhooks.idempotency_keys (
        api_key_id text NOT NULL,
        key text NOT NULL,
        request_hash text NOT NULL,
        webhook_id text,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (api_key_id, key)
      )`);
    await queryRunner.query(`CREATE INDEX idempotency_keys_created_idx ON webhooks.idempotency_keys (created_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE webhooks.idempotency_keys`);
  }
}
