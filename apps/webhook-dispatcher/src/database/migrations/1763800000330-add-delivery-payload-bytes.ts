import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each delivery's payload size as JSON, which the claim keeps within the
 * dispatcher's delivery buffer (WEBHOOK_DELIVERY_BUFFER_BYTES). Generated and
 * stored: computed once when a row is written, by whichever path writes it
 * (fan-out, a test event, or a dispatcher of the previous version still
 * running during a rolling update), instead of serializing every candidate's
 * payload on every claim (see DELIVERIES_CLAIM). For the existing rows this
 * ALTER computes it, rewriting the table once under an exclusive lock: fan-out
 * and claims wait meanwhile (9.5 s for a 211 MB table on a development machine).
 */
export class AddDeliveryPayloadBytes1763800000330 implements MigrationInterface {
  name = 'AddDeliveryPayloadBytes1763800000330';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE webhooks.deliveries ADD COLUMN payload_bytes integer GENERATED ALWAYS AS (octet_length(payload::text)) STORED`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE webhooks.deliveries DROP COLUMN payload_bytes`);
  }
}
