import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When the checks of a verified domain began to find a record missing: the domain stays verified while later checks
 * confirm it (DOMAIN_FAILURE_CONFIRMATION), and this is where the confirmation counts from. Null while nothing is missing.
 */
export class AddRecordsMissingSince1763800000130 implements MigrationInterface {
  name = 'AddRecordsMissingSince1763800000130';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE domains.domains ADD COLUMN records_missing_since timestamptz`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE domains.domains DROP COLUMN records_missing_since`);
  }
}
