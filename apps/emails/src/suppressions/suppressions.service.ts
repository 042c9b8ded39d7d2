import { Injectable } from '@nestjs/common';
import {
  normalizeEmailAddress,
  parseEmailAddress,
  SuppressionCreatePayload,
  SuppressionDeletedResponse,
  SuppressionList,
  SuppressionListPayload,
  SuppressionResponse,
  SuppressionByEmailPayload,
} from '@mailroom/contracts';
import { DomainError, ErrorCode } from '@mailroom/errors';
import { toResponse } from './suppression.mapper';
import { SuppressionsRepository } from './suppressions.repository';

/** The per-mode list of addresses never sent to (bounces and complaints land here too). */
@Injectable()
export class SuppressionsService {
  constructor(private readonly repository: SuppressionsRepository) {}

  async list({ ctx, params }: SuppressionListPayload): Promise<SuppressionList> {
    const page = await this.repository.list(ctx.mode, params);
    return { object: 'list', data: page.rows.map(toResponse), hasMore: page.hasMore, totalCount: page.totalCount };
  }

  async create({ ctx, input }: SuppressionCreatePayload): Promise<SuppressionResponse> {
    const parsed = parseEmailAddress(input.email);
    if (!parsed) throw DomainError.validation('email', `'${input.email}' is not a valid email address`);
    return toResponse(await this.repository.upsert(ctx.mode, parsed.normalized, input.reason ?? 'manual', input.details ?? null));
  }

  async delete({ ctx, email }: SuppressionByEmailPayload): Promise<SuppressionDeletedResponse> {
    // Read as a creation reads it, so `Ann <ann@x.com>` names the address it added; an entry no parser
    // accepts (added by a bounce, say) can still be named as it is listed.
    const address = parseEmailAddress(email)?.normalized ?? normalizeEmailAddress(email.trim());
    if (!(await this.repository.remove(ctx.mode, address))) {
      throw new DomainError(ErrorCode.NotFound, `'${address}' is not on the suppression list.`);
    }
    return { object: 'suppression', email: address, deleted: true };
  }
}
