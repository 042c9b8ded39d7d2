import { MigrationInterface, QueryRunner } from 'typeorm';
import { createSchemaUnlessExists } from '@mailroom/database';

/** The webhooks schema exists before its first table, so later migrations only add tables. */
export class CreateWebhooksSchema1763800000300 implements MigrationInterface {
  name = 'CreateWebhooksSchema1763800000300';

  async up(queryRunner: QueryRunner): Promise<void> {
    await createSchemaUnlessExists(queryRunner, 'webhooks');
  }

  async down(): Promise<void> {
    // The schema also holds the migrations table, so it is left in place.
  }
}
