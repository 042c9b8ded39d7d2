import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { RequestContext, SuppressionCreateDto, SuppressionListQueryDto, toListParams } from '@mailroom/contracts';
import { Ctx, RequirePermission } from '@mailroom/auth';
import { EmailsClient } from '../clients/emails.client';

/** Reading the list needs emails:read; changing it needs emails:send (it decides who gets mail). */
@Controller('v1/suppressions')
export class SuppressionsController {
  constructor(private readonly emails: EmailsClient) {}

  @Get()
  @RequirePermission('emails:read')
  list(@Ctx() ctx: RequestContext, @Query() query: SuppressionListQueryDto) {
    return this.emails.listSuppressions(ctx, toListParams(query, null));
  }

  @Post()
  @HttpCode(201)
  @RequirePermission('emails:send')
  create(@Ctx() ctx: RequestContext, @Body() body: SuppressionCreateDto) {
    return this.emails.createSuppression(ctx, body);
  }

  @Delete(':email')
  @RequirePermission('emails:send')
  delete(@Ctx() ctx: RequestContext, @Param('email') email: string) {
    return this.emails.deleteSuppression(ctx, email);
  }
}
