import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DomainUsagePayload, DomainUsageReply } from '@mailroom/contracts';
import { DomainError, ErrorCode } from '@mailroom/errors';
import { EmailsRepository } from '../emails/emails.repository';
import { SendingDomainFence } from './sending-domain-fence';

/** DOMAIN_USAGE_TIMEOUT_MS's default. */
const DEFAULT_ANSWER_WITHIN_MS = 2000;
/** lock_not_available: the lock_timeout passed. */
const LOCK_NOT_AVAILABLE = '55P03';

/**
 * The in-use check of a domain deletion. Nothing on its way means the
 * deletion goes on, so the domain is recorded as deleted in the same
 * transaction: a send that found it verified just before is then refused,
 * instead of being accepted (202) for a domain gone by the time it is
 * written. Recorded even if the domains service then fails to delete: the
 * account asked to give the domain up, and a DELETE repeated finishes it.
 */
@Injectable()
export class DomainUsageService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly emails: EmailsRepository,
    private readonly fence: SendingDomainFence,
  ) {}

  async usage({ domainName, domainId, answerWithinMs }: DomainUsagePayload): Promise<DomainUsageReply> {
    // An internal request, but a malformed one is still answered with what is wrong, not a TypeError.
    if (typeof domainName !== 'string' || !domainName) throw DomainError.validation('domainName', 'must be a domain name');
    const name = domainName.toLowerCase();
    const budgetMs = checkBudgetMs(answerWithinMs);
    const deadline = Date.now() + budgetMs;
    const tooLate = () => new DomainError(ErrorCode.ServiceUnavailable, `The in-use check of ${name} took over ${budgetMs} ms; nothing was recorded.`);
    return this.dataSource.transaction(async (manager) => {
      await this.fence.closeForDeletion(manager, name, budgetMs).catch((error) => {
        if (error?.code !== LOCK_NOT_AVAILABLE) throw error;
        throw tooLate();
      });
      const activeEmails = await this.emails.countActiveFromDomain(name, manager);
      // Past it, the domains service may have given up (503, nothing deleted): recording now would refuse a domain kept.
      if (Date.now() > deadline) throw tooLate();
      // A domains replica older than domainId deletes as before: counted, not recorded.
      if (activeEmails === 0 && typeof domainId === 'string' && domainId) await this.fence.recordDeletion(manager, domainId, name);
      return { activeEmails };
    });
  }
}

/** Half the domains service's wait, leaving it the other half to hear the answer; a replica older than answerWithinMs waits 2 s. */
function checkBudgetMs(answerWithinMs: unknown): number {
  const within = typeof answerWithinMs === 'number' && Number.isFinite(answerWithinMs) && answerWithinMs > 0 ? answerWithinMs : DEFAULT_ANSWER_WITHIN_MS;
  return Math.max(1, Math.floor(within / 2));
}
