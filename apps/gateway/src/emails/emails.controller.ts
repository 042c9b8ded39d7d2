import { Body, Controller, Get, Headers, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  EmailBatchDto,
  EmailListQueryDto,
  EmailRescheduleDto,
  EmailSendDto,
  EmailStatusValue,
  LIST_ID_PREFIXES,
  normalizeEmailAddress,
  RequestContext,
  toListParams,
  validateDto,
} from '@mailroom/contracts';
import { Ctx, RequirePermission } from '@mailroom/auth';
import { EmailsClient } from '../clients/emails.client';
import { idempotencyFrom } from '../http/idempotency-key';

/** Sends are accepted, not yet delivered: 202, and the email's status tells the rest. */
@Controller('v1/emails')
export class EmailsController {
  constructor(private readonly emails: EmailsClient) {}

  @Post()
  @HttpCode(202)
  @RequirePermission('emails:send')
  send(@Ctx() ctx: RequestContext, @Body() body: EmailSendDto, @Headers('idempotency-key') key?: string) {
    return this.emails.send(ctx, body, idempotencyFrom(key, 'POST /v1/emails', body));
  }

  /** `{ "emails": [...] }` or, as Resend takes it, a bare array. */
  @Post('batch')
  @HttpCode(202)
  @RequirePermission('emails:send')
  batch(@Ctx() ctx: RequestContext, @Body() body: unknown, @Headers('idempotency-key') key?: string) {
    const dto = validateDto(EmailBatchDto, Array.isArray(body) ? { emails: body } : body);
    // The Idempotency-Key hash covers the emails alone: both forms of one batch are one request.
    return this.emails.batch(ctx, dto.emails, idempotencyFrom(key, 'POST /v1/emails/batch', dto.emails));
  }

  @Get()
  @RequirePermission('emails:list')
  list(@Ctx() ctx: RequestContext, @Query() query: EmailListQueryDto) {
    return this.emails.list(ctx, toListParams(query, LIST_ID_PREFIXES.email), {
      status: query.status as EmailStatusValue | undefined,
      to: query.to === undefined ? undefined : normalizeEmailAddress(query.to),
      tags: query.tags?.split(','),
      fromDate: query.from_date,
      toDate: query.to_date,
    });
  }

  @Get(':id')
  @RequirePermission('emails:read')
  get(@Ctx() ctx: RequestContext, @Param('id') id: string) {
    return this.emails.get(ctx, id);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @RequirePermission('emails:send')
  cancel(@Ctx() ctx: RequestContext, @Param('id') id: string) {
    return this.emails.cancel(ctx, id);
  }

  @Patch(':id')
  @RequirePermission('emails:send')
  reschedule(@Ctx() ctx: RequestContext, @Param('id') id: string, @Body() body: EmailRescheduleDto) {
    return this.emails.reschedule(ctx, id, body.scheduledAt);
  }
}
