import { MigrationInterface, QueryRunner } from 'typeorm';
import { normalizeDomainName } from '@mailroom/contracts';

/**
 * Keys once stored domainRestrictions as written (`bücher.de`), while every
 * domain they are compared with is stored in punycode (`xn--bcher-kva.de`):
 * such a key could not send from its own domain. Each is rewritten in the
 * stored form. Postgres has no punycode, so the names go through the same
 * function as new keys. down() leaves them: both spellings name one domain.
 */
export class StoreRestrictedDomainsInPunycode1763800000010 implements MigrationInterface {
  name = 'StoreRestrictedDomainsInPunycode1763800000010';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Locked until the rewrite commits: a PATCH by the running keys service waits, or is read as it committed.
    const keys: Array<{ id: string; domain_restrictions: string[] }> = await queryRunner.query(
      `SELECT id, domain_restrictions FROM keys.api_keys WHERE EXISTS (SELECT 1 FROM unnest(domain_restrictions) AS name WHERE name !~ '^[a-z0-9.-]*$') FOR NO KEY UPDATE`,
    );
    for (const key of keys) {
      const stored = [...new Set(key.domain_restrictions.map((name) => normalizeDomainName(name) || name))];
      await queryRunner.query('UPDATE keys.api_keys SET domain_restrictions = $2 WHERE id = $1', [key.id, stored]);
    }
  }

  async down(): Promise<void> {
    // Nothing to undo: the punycode form names the same domains, and earlier code reads it as well.
  }
}
