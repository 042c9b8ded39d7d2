import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { DomainUsagePayload, DomainUsageReply, EmailsSubjects } from '@mailroom/contracts';
import { EmailsRepository } from '../emails/emails.repository';

/** Asked by the domains service before it deletes a domain. */
@Controller()
export class DomainUsageController {
  constructor(private readonly emails: EmailsRepository) {}

  @MessagePattern(EmailsSubjects.domainUsage)
  async usage(@Payload() { domainName }: DomainUsagePayload): Promise<DomainUsageReply> {
    return { activeEmails: await this.emails.countActiveFromDomain(domainName.toLowerCase()) };
  }
}
