import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { EmailsSubjects, SuppressionByEmailPayload, SuppressionCreatePayload, SuppressionListPayload } from '@mailroom/contracts';
import { SuppressionsService } from './suppressions.service';

@Controller()
export class SuppressionsController {
  constructor(private readonly suppressions: SuppressionsService) {}

  @MessagePattern(EmailsSubjects.suppressionList)
  list(@Payload() payload: SuppressionListPayload) {
    return this.suppressions.list(payload);
  }

  @MessagePattern(EmailsSubjects.suppressionCreate)
  create(@Payload() payload: SuppressionCreatePayload) {
    return this.suppressions.create(payload);
  }

  @MessagePattern(EmailsSubjects.suppressionDelete)
  delete(@Payload() payload: SuppressionByEmailPayload) {
    return this.suppressions.delete(payload);
  }
}
