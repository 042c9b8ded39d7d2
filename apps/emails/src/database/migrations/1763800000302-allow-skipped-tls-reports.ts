import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A TLS report whose only rua addresses are mailto: ones that could not be mailed signed (TLSRPT_FROM unset, or its
 * domain not verified) went nowhere: it is closed as `skipped`, not `sent` with an empty sent_to.
 */
export class AllowSkippedTlsReports1763800000302 implements MigrationInterface {
  name = 'AllowSkippedTlsReports1763800000302';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE emails.tlsrpt_reports
        DROP CONSTRAINT tlsrpt_reports_state_check,
        ADD CONSTRAINT tlsrpt_reports_state_check CHECK (state IN ('due', 'sent', 'no-record', 'dropped', 'skipped'))`);
    await queryRunner.query(`UPDATE emails.tlsrpt_reports SET state = 'skipped' WHERE state = 'sent' AND sent_to = '{}'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`UPDATE emails.tlsrpt_reports SET state = 'sent' WHERE state = 'skipped'`);
    await queryRunner.query(`
      ALTER TABLE emails.tlsrpt_reports
        DROP CONSTRAINT tlsrpt_reports_state_check,
        ADD CONSTRAINT tlsrpt_reports_state_check CHECK (state IN ('due', 'sent', 'no-record', 'dropped'))`);
  }
}
