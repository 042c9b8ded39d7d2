import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each recipient keeps its last attempts (when, the outcome, the server's reply), not only the last one's reply: an
 * address deferred for a day shows what every server said on the way. A constant default: Postgres 11+ adds the
 * column without rewriting the table, and rows written before read as an empty log.
 */
export class KeepRecipientAttemptLogs1763800000303 implements MigrationInterface {
  name = 'KeepRecipientAttemptLogs1763800000303';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE emails.recipients ADD COLUMN attempt_log jsonb NOT NULL DEFAULT '[]'::jsonb`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE emails.recipients DROP COLUMN attempt_log`);
  }
}
