import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateApiKeys1763800000000 implements MigrationInterface {
  name = 'CreateApiKeys1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE keys.api_keys (
        id text PRIMARY KEY,
        name text NOT NULL,
        mode text NOT NULL CHECK (mode IN ('live', 'test')),
        key_hash text NOT NULL,
        key_hint text NOT NULL,
        permissions text[] NOT NULL,
        domain_restrictions text[] NOT NULL DEFAULT '{}',
        ip_restrictions text[] NOT NULL DEFAULT '{}',
        expires_at timestamptz,
        last_used_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX api_keys_key_hash_idx ON keys.api_keys (key_hash)`);
    await queryRunner.query(`CREATE INDEX api_keys_mode_id_idx ON keys.api_keys (mode, id DESC) WHERE deleted_at IS NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE keys.api_keys`);
  }
}
