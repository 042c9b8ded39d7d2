import { MigrationInterface, QueryRunner } from 'typeorm';

/** The emails schema exists before its first table, so later migrations only add tables. */
export class CreateEmailsSchema1763800000200 implements MigrationInterface {
  name = 'CreateEmailsSchema1763800000200';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE SCHEMA IF NOT EXISTS emails');
  }

  async down(): Promise<void> {
    // The schema also holds the migrations table, so it is left in place.
  }
}
