import { MigrationInterface, QueryRunner } from 'typeorm';
import { outboxTableMigration } from '@mailroom/outbox';

export class CreateDomainsTable1763800000110 implements MigrationInterface {
  name = 'CreateDomainsTable1763800000110';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE domains.domains (
        id text PRIMARY KEY,
        name text NOT NULL,
        region text NOT NULL CHECK (region IN ('us', 'eu')),
        status text NOT NULL CHECK (status IN ('pending', 'verified', 'failed')),
        spf_status text NOT NULL CHECK (spf_status IN ('pending', 'verified')),
        dkim_status text NOT NULL CHECK (dkim_status IN ('pending', 'verified')),
        dmarc_status text NOT NULL CHECK (dmarc_status IN ('pending', 'verified')),
        dkim_selector text NOT NULL,
        dkim_public_key text NOT NULL,
        dkim_private_key_sealed text NOT NULL,
        open_tracking boolean NOT NULL DEFAULT true,
        click_tracking boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        verified_at timestamptz,
        failed_at timestamptz,
        pending_since timestamptz NOT NULL DEFAULT now(),
        check_attempts integer NOT NULL DEFAULT 0,
        next_check_at timestamptz,
        last_checked_at timestamptz,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX domains_name_idx ON domains.domains (name)`);
    await queryRunner.query(`CREATE INDEX domains_status_id_idx ON domains.domains (status, id DESC)`);
    // The background checker's claim query: due domains, oldest due first.
    await queryRunner.query(`CREATE INDEX domains_next_check_idx ON domains.domains (next_check_at) WHERE next_check_at IS NOT NULL`);
    for (const sql of outboxTableMigration('domains').up) await queryRunner.query(sql);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const sql of outboxTableMigration('domains').down) await queryRunner.query(sql);
    await queryRunner.query(`DROP TABLE domains.domains`);
  }
}
