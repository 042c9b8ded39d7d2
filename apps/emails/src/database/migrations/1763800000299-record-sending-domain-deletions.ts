import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The sending domains (by the domains service's id) whose deletion passed its
 * in-use check. A send that found such a domain verified just before is
 * refused when it comes to write its email, under the domain's lock (see
 * SendingDomainFence). By id, not name: the name added again is a new domain.
 */
export class RecordSendingDomainDeletions1763800000299 implements MigrationInterface {
  name = 'RecordSendingDomainDeletions1763800000299';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE emails.sending_domain_deletions (
        domain_id text PRIMARY KEY,
        name text NOT NULL,
        deleted_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE emails.sending_domain_deletions');
  }
}
