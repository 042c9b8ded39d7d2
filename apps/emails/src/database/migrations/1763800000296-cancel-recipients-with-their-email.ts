import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A cancelled email's recipients said `queued` for ever, next to the email's
 * `cancelled`. They now take the state `cancelled` with the email; the ones
 * cancelled before this migration are moved too.
 */
export class CancelRecipientsWithTheirEmail1763800000296 implements MigrationInterface {
  name = 'CancelRecipientsWithTheirEmail1763800000296';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE emails.recipients DROP CONSTRAINT recipients_status_check');
    await queryRunner.query(
      `ALTER TABLE emails.recipients ADD CONSTRAINT recipients_status_check
         CHECK (status IN ('queued', 'sent', 'delivered', 'bounced', 'failed', 'suppressed', 'deferred', 'cancelled'))`,
    );
    await queryRunner.query(
      `UPDATE emails.recipients r SET status = 'cancelled', next_attempt_at = NULL, updated_at = now()
         FROM emails.emails e
        WHERE e.id = r.email_id AND e.status = 'cancelled' AND r.status IN ('queued', 'deferred')`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`UPDATE emails.recipients SET status = 'queued' WHERE status = 'cancelled'`);
    await queryRunner.query('ALTER TABLE emails.recipients DROP CONSTRAINT recipients_status_check');
    await queryRunner.query(
      `ALTER TABLE emails.recipients ADD CONSTRAINT recipients_status_check
         CHECK (status IN ('queued', 'sent', 'delivered', 'bounced', 'failed', 'suppressed', 'deferred'))`,
    );
  }
}
