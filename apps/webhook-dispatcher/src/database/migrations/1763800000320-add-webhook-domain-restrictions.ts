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

  /**
   * Refused while a webhook holds restrictions: dropping them cannot be
   * undone, and up() again would leave such a webhook receiving every
   * domain's events. Running the previous release needs no down(): it
   * never reads the column.
   */
  async down(queryRunner: QueryRunner): Promise<void> {
    const restricted: Array<{ id: string }> = await queryRunner.query(`SELECT id FROM webhooks.webhooks WHERE domain_restrictions <> '{}' ORDER BY id`);
    if (restricted.length) {
      const named = restricted.slice(0, 5).map((row) => row.id).join(', ');
      throw new Error(
        `${this.name}: not undone, ${restricted.length} webhook${restricted.length === 1 ? ' is' : 's are'} restricted to domains ` +
          `(${named}${restricted.length > 5 ? ', …' : ''}). Dropping the restrictions would leave them receiving every domain's events, ` +
          `also after migrating up again. The previous release runs with the column in place; delete those webhooks first to undo it.`,
      );
    }
    await queryRunner.query(`ALTER TABLE webhooks.webhooks DROP COLUMN domain_restrictions`);
  }
}
