import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * DKIM keys of a domain other than the active one, which stays on the domain row (dkim_selector, dkim_public_key,
 * dkim_private_key_sealed) where signing, the resealer and the zone always read it. Here: the key of a rotation
 * waiting for its CNAME (`pending`, at most one per domain), the keys it replaced (`retiring`: still published until
 * retire_after), and, once those are purged, their selectors alone (`retired`, key columns null), so a selector is
 * never handed out twice for one domain. Private keys are sealed as the active one is: the domain id as associated
 * data, so a key moves between this table and the domain row without being sealed again.
 */
export class CreateDkimKeys1763800000150 implements MigrationInterface {
  name = 'CreateDkimKeys1763800000150';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE domains.dkim_keys (
        id text PRIMARY KEY,
        domain_id text NOT NULL REFERENCES domains.domains (id) ON DELETE CASCADE,
        selector text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'retiring', 'retired')),
        public_key text,
        private_key_sealed text,
        check_attempts integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        retire_after timestamptz,
        CONSTRAINT dkim_keys_selector_uq UNIQUE (domain_id, selector),
        CONSTRAINT dkim_keys_key_kept_chk CHECK ((status = 'retired') = (public_key IS NULL) AND (status = 'retired') = (private_key_sealed IS NULL)),
        CONSTRAINT dkim_keys_retire_after_chk CHECK (status <> 'retiring' OR retire_after IS NOT NULL)
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX dkim_keys_one_pending_idx ON domains.dkim_keys (domain_id) WHERE status = 'pending'`);
    // The purge's query: retiring keys past their time.
    await queryRunner.query(`CREATE INDEX dkim_keys_retire_after_idx ON domains.dkim_keys (retire_after) WHERE status = 'retiring'`);
  }

  /** Pending and retiring keys go (a rotation in progress is lost, an old key unpublished early); every domain keeps its active key. */
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE domains.dkim_keys`);
  }
}
