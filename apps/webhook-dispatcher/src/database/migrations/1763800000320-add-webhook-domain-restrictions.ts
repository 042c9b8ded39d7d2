import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A webhook keeps the domainRestrictions of the key that created it, and
 * receives only events of those domains. Webhooks created before it held no
 * restriction and delivered every domain's events; they keep doing so ('{}'
 * is unrestricted), since which key made them is not recorded.
 */
export class AddWebhookDomainRestrictions1763800000320 implements MigrationInterface {
  name = 'AddWebhookDomainRestrictions1763800000320';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE webhooks.webhooks ADD COLUMN domain_restrictions text[] NOT NULL DEFAULT '{}'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE webhooks.webhooks DROP COLUMN domain_restrictions`);
  }
}
