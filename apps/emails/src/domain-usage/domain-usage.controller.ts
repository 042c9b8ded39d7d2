import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { DomainUsagePayload, DomainUsageReply, EmailsSubjects } from '@mailroom/contracts';
import { DomainUsageService } from './domain-usage.service';

/** Asked by the domains service before it deletes a domain. */
@Controller()
export class DomainUsageController {
  constructor(private readonly usage: DomainUsageService) {}

  @MessagePattern(EmailsSubjects.domainUsage)
  check(@Payload() payload: DomainUsagePayload): Promise<DomainUsageReply> {
    return this.usage.usage(payload);
  }
}
