import { Injectable } from '@nestjs/common';
import { grants } from '@mailroom/auth';
import type { EmailResponse, EmailScheduleChange, RequestContext } from '@mailroom/contracts';
import { DomainError } from '@mailroom/errors';
import { appendEvents } from '@mailroom/outbox';
import { EntityManager } from 'typeorm';
import { EmailEntity } from '../database/entities/email.entity';
import { emailEvent } from './email-events';
import { parseScheduledAt } from './email-input.parser';
import { toResponse, toScheduleChange } from './email.mapper';
import { EmailsRepository } from './emails.repository';

/**
 * Cancel and reschedule, both only while an email is scheduled. The row is
 * locked first; the worker claims with SKIP LOCKED, so it either claimed the
 * email before (then it holds a live lease and we answer 409) or cannot
 * claim it until we commit. A key without emails:read is answered with the
 * change alone (EmailScheduleChange), not the email's content.
 */
@Injectable()
export class EmailScheduleService {
  constructor(private readonly repository: EmailsRepository) {}

  cancel(ctx: RequestContext, id: string): Promise<EmailResponse | EmailScheduleChange> {
    return this.changeScheduled(ctx, id, 'cancel', async (manager, email, now) => {
      email.status = 'cancelled';
      email.nextAttemptAt = null;
      email.updatedAt = now;
      await this.repository.cancelRecipients(manager, id);
      return emailEvent('email.cancelled', email);
    });
  }

  reschedule(ctx: RequestContext, id: string, scheduledAt: string): Promise<EmailResponse | EmailScheduleChange> {
    const at = parseScheduledAt(scheduledAt, 'scheduledAt', new Date());
    return this.changeScheduled(ctx, id, 'reschedule', async (_manager, email, now) => {
      // The time it already has: a retried PATCH, which must not tell webhooks of a reschedule again.
      if (email.scheduledAt?.getTime() === at.getTime()) return null;
      email.scheduledAt = at;
      email.nextAttemptAt = at;
      email.updatedAt = now;
      return emailEvent('email.scheduled', email, { scheduledAt: at.toISOString(), rescheduled: true });
    });
  }

  private async changeScheduled(
    ctx: RequestContext,
    id: string,
    action: 'cancel' | 'reschedule',
    /** Answers the event of the change, or null when the email already is as asked (nothing is written). */
    change: (manager: EntityManager, email: EmailEntity, now: Date) => Promise<ReturnType<typeof emailEvent> | null>,
  ): Promise<EmailResponse | EmailScheduleChange> {
    return this.repository.dataSource.transaction(async (manager) => {
      const email = await this.repository.findVisible(ctx, id, manager, true);
      if (!email) throw DomainError.notFound('email', id);
      const now = new Date();
      const leased = email.leaseExpiresAt !== null && email.leaseExpiresAt > now;
      if (email.status !== 'scheduled' || leased) {
        const state = email.status === 'scheduled' ? 'being sent' : email.status;
        throw DomainError.conflict(`Only a scheduled email can be ${action === 'cancel' ? 'cancelled' : 'rescheduled'}; email ${id} is ${state}.`);
      }
      const event = await change(manager, email, now);
      if (event) {
        await this.repository.save(manager, email);
        await appendEvents(manager, 'emails', [event]);
      }
      // Both routes need only emails:send; the content is shown to keys that may read it.
      if (!grants(ctx.permissions, 'emails:read')) return toScheduleChange(email);
      return toResponse(email, await this.repository.recipientsOf(id, manager));
    });
  }
}
