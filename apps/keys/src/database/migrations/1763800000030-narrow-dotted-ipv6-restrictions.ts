import { MigrationInterface, QueryRunner } from 'typeorm';

/** An IPv6 range written with a dotted IPv4 tail (`::10.0.0.0/8`, `64:ff9b::192.0.2.7/64`) and its prefix. */
const DOTTED_TAIL = /^[0-9a-f:]*:(\d+\.\d+\.\d+\.\d+)\/(\d+)$/i;

/**
 * The sequel of NarrowIpv4MappedRestrictions for every other IPv6 spelling
 * with a dotted IPv4 tail: `::10.0.0.0/8` reads like 10.0.0.0/8 but is
 * enforced as ::/8, which admits every IPv4 client. Creation now refuses a
 * prefix under /96 in any such spelling; stored ones become the IPv4 range
 * they read like, as the earlier migration did for `::ffff:`: a prefix of 32
 * or less counts from the IPv4 part (`::ffff:10.0.0.0/104`), and one of 33
 * to 95 becomes the one address written (`/128`). Either is narrower than
 * what was enforced. down() leaves them: every version reads them.
 */
export class NarrowDottedIpv6Restrictions1763800000030 implements MigrationInterface {
  name = 'NarrowDottedIpv6Restrictions1763800000030';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Locked until the rewrite commits: a PATCH by the running keys service waits, or is read as it committed.
    const keys: Array<{ id: string; ip_restrictions: string[] }> = await queryRunner.query(
      `SELECT id, ip_restrictions FROM keys.api_keys WHERE EXISTS (SELECT 1 FROM unnest(ip_restrictions) AS range WHERE range ~* '^[0-9a-f:]*:[0-9.]+/[0-9]+$') FOR NO KEY UPDATE`,
    );
    for (const key of keys) {
      const narrowed = [...new Set(key.ip_restrictions.map(narrowedRange))];
      await queryRunner.query('UPDATE keys.api_keys SET ip_restrictions = $2 WHERE id = $1', [key.id, narrowed]);
    }
  }

  async down(): Promise<void> {
    // Nothing to undo: the narrowed ranges are valid in every version.
  }
}

function narrowedRange(range: string): string {
  const match = DOTTED_TAIL.exec(range);
  if (!match) return range;
  const prefix = Number(match[2]);
  if (prefix >= 96) return range;
  return `::ffff:${match[1]}/${prefix <= 32 ? prefix + 96 : 128}`;
}
