import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The sending domains (by the domains service's id) whose deletion passed its
 * in-use check. A send that found such a domain verified just before is
 * refused when it comes to write its email, under the domain's lock (see
 * SendingDomainFence). By id, not name: the name added again is a new domain.
 *
 * deleted_sending_domains is what the send's insert statement calls to do so
 * in the same round trip: it waits for the domains' locks, then reads the
 * deletions in a statement of its own. A VOLATILE function's statements each
 * take a fresh snapshot, so the read sees a deletion committed while it
 * waited, which the calling statement's snapshot, taken before, would not.
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
    await queryRunner.query(`
      CREATE FUNCTION emails.deleted_sending_domains(lock_class integer, names text[], ids text[]) RETURNS SETOF text
      LANGUAGE plpgsql VOLATILE AS $$
      BEGIN
        -- In one order: shared locks never wait on each other, but on a waiting in-use check they do.
        PERFORM pg_advisory_xact_lock_shared(lock_class, key) FROM (SELECT DISTINCT hashtext(name) AS key FROM unnest(names) AS name ORDER BY 1) AS keys;
        RETURN QUERY SELECT domain_id FROM emails.sending_domain_deletions WHERE domain_id = ANY(ids);
      END
      $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP FUNCTION emails.deleted_sending_domains(integer, text[], text[])');
    await queryRunner.query('DROP TABLE emails.sending_domain_deletions');
  }
}
