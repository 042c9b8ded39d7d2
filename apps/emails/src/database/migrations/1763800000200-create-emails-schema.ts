import { MigrationInterface, QueryRunner } from 'typeorm';
import { createSchemaUnlessExists } from '@mailroom/database';

/** The emails schema exists before its first table, so later migrations only add tables. */
export class CreateEmailsSchema1763800000200 implements MigrationInterface {
  name = 'CreateEmailsSchema1763800000200';

  async up(queryRunner: QueryRunner): Promise<void> {
    await createSchemaUnlessExists(queryRunner, 'emails');
  }

  async down(): Promise<void> {
    // The schema also holds the migrations table, so it is left in place.
  }
}
