import { MigrationInterface, QueryRunner } from 'typeorm';

/** `::ffff:a.b.c.d/n` with n under 96: the forms keys may no longer be given. */
const MAPPED_WITH_SHORT_PREFIX = /^(::ffff:\d+\.\d+\.\d+\.\d+)\/(\d+)$/i;

/**
 * Keys could once be given `::ffff:10.0.0.0/8` in ipRestrictions. It reads
 * like 10.0.0.0/8, but an IPv6 prefix counts IPv6 bits: it was enforced as
 * ::/8, which admits every IPv4 client. Creation now refuses it; stored ones
 * are rewritten as what they read like: an IPv4-sized prefix (≤ 32) counts
 * from the mapped IPv4 part (/8 becomes /104), and a prefix of 33 to 95,
 * which names no IPv4 range at all, becomes the one address written (/128).
 * Either is narrower than what was enforced. down() leaves them: the earlier
 * code reads the narrower ranges as well.
 */
export class NarrowIpv4MappedRestrictions1763800000020 implements MigrationInterface {
  name = 'NarrowIpv4MappedRestrictions1763800000020';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Locked until the rewrite commits: a PATCH by the running keys service waits, or is read as it committed.
    const keys: Array<{ id: string; ip_restrictions: string[] }> = await queryRunner.query(
      `SELECT id, ip_restrictions FROM keys.api_keys WHERE EXISTS (SELECT 1 FROM unnest(ip_restrictions) AS range WHERE range ~* '^::ffff:[0-9.]+/[0-9]+$') FOR NO KEY UPDATE`,
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
  const match = MAPPED_WITH_SHORT_PREFIX.exec(range);
  if (!match) return range;
  const prefix = Number(match[2]);
  if (prefix >= 96) return range;
  return `${match[1]}/${prefix <= 32 ? prefix + 96 : 128}`;
}
