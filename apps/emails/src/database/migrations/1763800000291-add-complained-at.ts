import { MigrationInterface, QueryRunner } from 'typeorm';

/** When a recipient complained (feedback loop or test mode); the email shows the first complaint. */
export class AddComplainedAt1763800000291 implements MigrationInterface {
  name = 'AddComplainedAt1763800000291';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE emails.recipients ADD COLUMN complained_at timestamptz');
    await queryRunner.query('ALTER TABLE emails.emails ADD COLUMN complained_at timestamptz');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE emails.emails DROP COLUMN complained_at');
    await queryRunner.query('ALTER TABLE emails.recipients DROP COLUMN complained_at');
  }
}
