import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DomainUsagePayload, DomainUsageReply } from '@mailroom/contracts';
import { EmailsRepository } from '../emails/emails.repository';
import { SendingDomainFence } from './sending-domain-fence';

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

  usage({ domainName, domainId }: DomainUsagePayload): Promise<DomainUsageReply> {
    const name = domainName.toLowerCase();
    return this.dataSource.transaction(async (manager) => {
      await this.fence.closeForDeletion(manager, name);
      const activeEmails = await this.emails.countActiveFromDomain(name, manager);
      // A domains replica older than domainId deletes as before: counted, not recorded.
      if (activeEmails === 0 && typeof domainId === 'string' && domainId) await this.fence.recordDeletion(manager, domainId, name);
      return { activeEmails };
    });
  }
}
