import { Injectable } from '@nestjs/common';
import type { EmailList, EmailListPayload, EmailResponse, RequestContext } from '@mailroom/contracts';
import { inOneSnapshot } from '@mailroom/database';
import { DomainError } from '@mailroom/errors';
import { withCreatedAtBounds } from './created-at-bounds';
import { toListItem, toResponse } from './email.mapper';
import { EmailsRepository } from './emails.repository';

@Injectable()
export class EmailQueryService {
  constructor(private readonly repository: EmailsRepository) {}

  async list({ ctx, params, filters }: EmailListPayload): Promise<EmailList> {
    const page = await this.repository.list(ctx, withCreatedAtBounds(filters), params);
    return { object: 'list', data: page.rows.map(toListItem), hasMore: page.hasMore, totalCount: page.totalCount };
  }

  /** An email of another mode, or from a domain outside the key's restrictions, does not exist for this caller. */
  get(ctx: RequestContext, id: string): Promise<EmailResponse> {
    // One snapshot, so the email's status and its recipients' outcomes always agree.
    return inOneSnapshot(this.repository.dataSource, async (manager) => {
      const email = await this.repository.findVisible(ctx, id, manager);
      if (!email) throw DomainError.notFound('email', id);
      return toResponse(email, await this.repository.recipientsOf(id, manager));
    });
  }
}
