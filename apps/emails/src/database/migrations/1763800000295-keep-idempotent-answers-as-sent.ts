import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A replayed Idempotency-Key answer must be the first answer, not a
 * reordering of it: jsonb sorts an object's keys (shortest first), so a
 * replay began `{"cc":[],"id":…` where the first answer began `{"id":…,
 * "object":"email"`. json keeps the text as it was written.
 */
export class KeepIdempotentAnswersAsSent1763800000295 implements MigrationInterface {
  name = 'KeepIdempotentAnswersAsSent1763800000295';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE emails.idempotency_keys ALTER COLUMN response TYPE json USING response::json');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE emails.idempotency_keys ALTER COLUMN response TYPE jsonb USING response::jsonb');
  }
}
