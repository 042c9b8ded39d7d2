import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { normalizeEmailAddress, plusReadAsSpaceHint, type ListParams, type Mode } from '@mailroom/contracts';
import { inOneSnapshot } from '@mailroom/database';
import { DomainError } from '@mailroom/errors';
import { SuppressionEntity, SuppressionReason } from '../database/entities/suppression.entity';

export interface SuppressionPage {
  rows: SuppressionEntity[];
  hasMore: boolean;
  totalCount: number;
}

/**
 * Suppressions have no id, so pages are keyed on (created_at, address):
 * newest first, and the cursors are addresses from a previous page.
 */
@Injectable()
export class SuppressionsRepository {
  constructor(@InjectRepository(SuppressionEntity) private readonly repository: Repository<SuppressionEntity>) {}

  /**
   * The row as this statement wrote it. Read back in a second statement, a DELETE of the address committed in
   * between left nothing to read (and the request failed with 500).
   */
  async upsert(mode: Mode, address: string, reason: SuppressionReason, details: string | null): Promise<SuppressionEntity> {
    // A re-added address keeps its first created_at and takes the new reason.
    const [row]: Array<{ reason: SuppressionReason; details: string | null; created_at: Date }> = await this.repository.query(
      `INSERT INTO emails.suppressions (mode, address, reason, details, created_at) VALUES ($1, $2, $3, $4, now())
       ON CONFLICT (mode, address) DO UPDATE SET reason = EXCLUDED.reason, details = EXCLUDED.details
       RETURNING reason, details, created_at`,
      [mode, address, reason, details],
    );
    return Object.assign(new SuppressionEntity(), { mode, address, reason: row.reason, details: row.details, createdAt: row.created_at });
  }

  async remove(mode: Mode, address: string): Promise<boolean> {
    const result = await this.repository.delete({ mode, address });
    return (result.affected ?? 0) > 0;
  }

  /** The page, its cursor and its totalCount in one snapshot, so they agree while bounces and complaints add addresses. */
  list(mode: Mode, params: ListParams): Promise<SuppressionPage> {
    return inOneSnapshot(this.repository.manager.connection, async (manager) => {
      const suppressions = manager.getRepository(SuppressionEntity);
      const totalCount = await suppressions.countBy({ mode });
      const query = suppressions.createQueryBuilder('s').where('s.mode = :mode', { mode });
      const cursorAddress = params.endingBefore ?? params.startingAfter;
      if (cursorAddress) {
        const cursor = await suppressions.findOneBy({ mode, address: normalizeEmailAddress(cursorAddress) });
        const field = params.endingBefore ? 'ending_before' : 'starting_after';
        if (!cursor) {
          // Only when the + address is on the list: any parseable one (`Ann+<ann@x.com>` from a display-name cursor,
          // which has no +) told the caller to write a + they never wrote, and %2B led to the same 422.
          const withPlus = normalizeEmailAddress(cursorAddress.replaceAll(' ', '+'));
          const plusOnList = cursorAddress.includes(' ') && (await suppressions.existsBy({ mode, address: withPlus }));
          const hint = plusReadAsSpaceHint(cursorAddress, () => plusOnList);
          throw DomainError.validation(field, `must be an address from a previous page that is still on the list${hint}`);
        }
        const comparison = params.endingBefore ? '>' : '<';
        // Compared in SQL: created_at has microseconds, a JS Date only milliseconds.
        query.andWhere(
          `(s.created_at, s.address) ${comparison} (SELECT c.created_at, c.address FROM emails.suppressions c WHERE c.mode = :mode AND c.address = :cursor)`,
          { cursor: cursor.address },
        );
      }
      const direction = params.endingBefore ? 'ASC' : 'DESC';
      const rows = await query
        .orderBy('s.created_at', direction)
        .addOrderBy('s.address', direction)
        .take(params.limit + 1)
        .getMany();
      const hasMore = rows.length > params.limit;
      const page = rows.slice(0, params.limit);
      return { rows: params.endingBefore ? page.reverse() : page, hasMore, totalCount };
    });
  }
}
