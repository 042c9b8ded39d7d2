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
  type RequestContext,
} from '@mailroom/contracts';
import { DomainError, ErrorCode, quotedForMessage } from '@mailroom/errors';
import { toResponse } from './suppression.mapper';
import { SuppressionsRepository } from './suppressions.repository';
import { invalidAddress } from '../emails/invalid-address';

/**
 * The list is one per mode and belongs to no domain: a bounce or complaint from one domain's mail keeps every
 * domain from sending there. So a key limited to some domains may not use it at all: reading it would show other
 * domains' recipients, and deleting or re-adding an entry would undo or rewrite what their mail put there.
 */
function assertUnrestricted(ctx: RequestContext): void {
  if (ctx.domainRestrictions.length) {
    throw DomainError.forbidden(
      `The suppression list is shared by every sending domain; this API key is restricted to ${ctx.domainRestrictions.join(', ')} and cannot read or change it.`,
    );
  }
}

/** The per-mode list of addresses never sent to (bounces and complaints land here too). */
@Injectable()
export class SuppressionsService {
  constructor(private readonly repository: SuppressionsRepository) {}

  async list({ ctx, params }: SuppressionListPayload): Promise<SuppressionList> {
    assertUnrestricted(ctx);
    const page = await this.repository.list(ctx.mode, params);
    return { object: 'list', data: page.rows.map(toResponse), hasMore: page.hasMore, totalCount: page.totalCount };
  }

  async create({ ctx, input }: SuppressionCreatePayload): Promise<SuppressionResponse> {
    assertUnrestricted(ctx);
    const parsed = parseEmailAddress(input.email);
    if (!parsed) throw invalidAddress('email', input.email);
    return toResponse(await this.repository.upsert(ctx.mode, parsed.normalized, input.reason ?? 'manual', input.details ?? null));
  }

  async delete({ ctx, email }: SuppressionByEmailPayload): Promise<SuppressionDeletedResponse> {
    assertUnrestricted(ctx);
    // Read as a creation reads it, so `Ann <ann@x.com>` names the address it added; an entry no parser
    // accepts (added by a bounce, say) can still be named as it is listed.
    // A blank path segment (%20) is no address at all, not one missing from the list.
    if (!email.trim()) throw DomainError.validation('email', 'must not be blank');
    const address = parseEmailAddress(email)?.normalized ?? normalizeEmailAddress(email.trim());
    if (!(await this.repository.remove(ctx.mode, address))) {
      throw new DomainError(ErrorCode.NotFound, `${quotedForMessage(address)} is not on the suppression list.`);
    }
    return { object: 'suppression', email: address, deleted: true };
  }
}
