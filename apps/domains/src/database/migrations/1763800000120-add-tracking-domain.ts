import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A custom tracking domain per sending domain. Both columns null means the
 * domain uses the host of TRACKING_BASE_URL; they are set and cleared together.
 */
export class AddTrackingDomain1763800000120 implements MigrationInterface {
  name = 'AddTrackingDomain1763800000120';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE domains.domains
        ADD COLUMN tracking_domain text,
        ADD COLUMN tracking_domain_status text
          CHECK (tracking_domain_status IN ('pending', 'verified', 'failed')),
        ADD CONSTRAINT domains_tracking_domain_pair_chk
          CHECK ((tracking_domain IS NULL) = (tracking_domain_status IS NULL))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE domains.domains
        DROP CONSTRAINT domains_tracking_domain_pair_chk,
        DROP COLUMN tracking_domain_status,
        DROP COLUMN tracking_domain`);
  }
}
