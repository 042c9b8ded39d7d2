import { MigrationInterface, QueryRunner } from 'typeorm';
import { createSchemaUnlessExists } from '@mailroom/database';

/** The domains schema exists before its first table, so later migrations only add tables. */
export class CreateDomainsSchema1763800000100 implements MigrationInterface {
  name = 'CreateDomainsSchema1763800000100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await createSchemaUnlessExists(queryRunner, 'domains');
  }

  async down(): Promise<void> {
    // The schema also holds the migrations table, so it is left in place.
  }
}
