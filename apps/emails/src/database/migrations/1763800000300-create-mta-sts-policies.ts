import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The MTA-STS policies (RFC 8461) of recipient domains, as last fetched: kept until their max_age runs out, so that
 * neither a restart nor an attacker who strips the `_mta-sts` TXT record from DNS answers can downgrade delivery to a
 * domain whose policy is enforced (RFC 8461 §5.1). One row per domain; a policy fetched again replaces it.
 */
export class CreateMtaStsPolicies1763800000300 implements MigrationInterface {
  name = 'CreateMtaStsPolicies1763800000300';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE emails.mta_sts_policies (
        domain text PRIMARY KEY,
        policy_id text NOT NULL,
        mode text NOT NULL CHECK (mode IN ('enforce', 'testing', 'none')),
        mx text[] NOT NULL,
        max_age integer NOT NULL CHECK (max_age >= 0),
        fetched_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL
      )`);
    await queryRunner.query('CREATE INDEX mta_sts_policies_expires_at ON emails.mta_sts_policies (expires_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE emails.mta_sts_policies');
  }
}
