import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every accepted email is updated again by delivery: the claim writes its
 * lease, each attempt writes its recipients. Rows are appended to full pages,
 * so each of those updates moved the row to another page and added an entry
 * to every index (seven on emails, two of them GIN). Free space on the page
 * lets Postgres update in place (a HOT update) whenever no indexed column
 * changes: the lease on emails and every recipient outcome. It applies to
 * pages written from now on.
 */
export class LeaveRoomForHotUpdates1763800000294 implements MigrationInterface {
  name = 'LeaveRoomForHotUpdates1763800000294';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE emails.emails SET (fillfactor = 80)');
    await queryRunner.query('ALTER TABLE emails.recipients SET (fillfactor = 70)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE emails.emails RESET (fillfactor)');
    await queryRunner.query('ALTER TABLE emails.recipients RESET (fillfactor)');
  }
}
