import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { EmailBatchPayload, EmailByIdPayload, EmailListPayload, EmailReschedulePayload, EmailSendPayload, EmailsSubjects } from '@mailroom/contracts';
import { CallerDeadline, RpcDeadline } from '@mailroom/runtime';
import { EmailQueryService } from './email-query.service';
import { EmailScheduleService } from './email-schedule.service';
import { EmailSendingService } from './email-sending.service';

@Controller()
export class EmailsController {
  constructor(
    private readonly sending: EmailSendingService,
    private readonly schedule: EmailScheduleService,
    private readonly query: EmailQueryService,
  ) {}

  @MessagePattern(EmailsSubjects.send)
  send(@Payload() payload: EmailSendPayload, @CallerDeadline() deadline?: RpcDeadline) {
    return this.sending.send(payload, deadline);
  }

  @MessagePattern(EmailsSubjects.batch)
  batch(@Payload() payload: EmailBatchPayload, @CallerDeadline() deadline?: RpcDeadline) {
    return this.sending.batch(payload, deadline);
  }

  @MessagePattern(EmailsSubjects.list)
  list(@Payload() payload: EmailListPayload) {
    return this.query.list(payload);
  }

  @MessagePattern(EmailsSubjects.get)
  get(@Payload() { ctx, id }: EmailByIdPayload) {
    return this.query.get(ctx, id);
  }

  @MessagePattern(EmailsSubjects.cancel)
  cancel(@Payload() { ctx, id }: EmailByIdPayload) {
    return this.schedule.cancel(ctx, id);
  }

  @MessagePattern(EmailsSubjects.reschedule)
  reschedule(@Payload() { ctx, id, scheduledAt }: EmailReschedulePayload) {
    return this.schedule.reschedule(ctx, id, scheduledAt);
  }
}
