import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each delivery's payload size as JSON, which the claim keeps within the
 * dispatcher's delivery buffer (WEBHOOK_DELIVERY_BUFFER_BYTES), stored when a
 * row is inserted instead of serializing every candidate's payload on every
 * claim (see DELIVERIES_CLAIM).
 *
 * A plain nullable column without a default, filled by a trigger, not a stored
 * generated column: adding a generated column computes it for every existing
 * row, rewriting the whole table under an ACCESS EXCLUSIVE lock that stops
 * fan-out, claims and the API's delivery reads meanwhile (9.5 s for a 211 MB
 * table on a development machine; minutes for a production one). This ALTER
 * only changes the catalog, so the lock is held for an instant, and the rows
 * already there keep NULL: the claim computes their size itself, and only
 * those still due pay for it. The trigger fills the column on every insert,
 * whichever path writes it (fan-out, a test event, or a dispatcher of the
 * previous version still running during a rolling update, which does not
 * know the column). Nothing updates a delivery's payload, so no update
 * trigger is needed.
 */
export class AddDeliveryPayloadBytes1763800000330 implements MigrationInterface {
  name = 'AddDeliveryPayloadBytes1763800000330';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE webhooks.deliveries ADD COLUMN payload_bytes integer`);
    await queryRunner.query(`
      CREATE FUNCTION webhooks.deliveries_payload_bytes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN NEW.payload_bytes := octet_length(NEW.payload::text); RETURN NEW; END $$`);
    await queryRunner.query(`CREATE TRIGGER deliveries_payload_bytes BEFORE INSERT ON webhooks.deliveries
      FOR EACH ROW EXECUTE FUNCTION webhooks.deliveries_payload_bytes()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER deliveries_payload_bytes ON webhooks.deliveries`);
    await queryRunner.query(`DROP FUNCTION webhooks.deliveries_payload_bytes()`);
    await queryRunner.query(`ALTER TABLE webhooks.deliveries DROP COLUMN payload_bytes`);
  }
}
