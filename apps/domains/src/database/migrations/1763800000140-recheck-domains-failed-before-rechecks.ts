import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Before failed domains that had been verified were re-checked in the background, such a domain failed on one look
 * and was left with no next check. Each gets one look now: its records back, it is verified again; still missing, the
 * check finds it past DOMAIN_PENDING_TIMEOUT (or not, and it goes on being checked like one that failed today).
 */
export class RecheckDomainsFailedBeforeRechecks1763800000140 implements MigrationInterface {
  name = 'RecheckDomainsFailedBeforeRechecks1763800000140';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`UPDATE domains.domains SET next_check_at = now() WHERE status = 'failed' AND verified_at IS NOT NULL AND next_check_at IS NULL`);
  }

  async down(): Promise<void> {
    // Nothing to undo: a due check is one the scheduler would have made anyway.
  }
}
