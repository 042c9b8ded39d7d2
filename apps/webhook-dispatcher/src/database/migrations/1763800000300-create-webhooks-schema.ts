import { MigrationInterface, QueryRunner } from 'typeorm';

/** The webhooks schema exists before its first table, so later migrations only add tables. */
export class CreateWebhooksSchema1763800000300 implements MigrationInterface {
  name = 'CreateWebhooksSchema1763800000300';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE SCHEMA IF NOT EXISTS webhooks');
  }

  async down(): Promise<void> {
    // The schema also holds the migrations table, so it is left in place.
  }
}
