import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { DeliveryListQueryDto, LIST_ID_PREFIXES, RequestContext, toListParams, WebhookCreateDto, WebhookListQueryDto, WebhookUpdateDto } from '@mailroom/contracts';
import { Ctx, RequirePermission } from '@mailroom/auth';
import { WebhooksClient } from '../clients/webhooks.client';
import { idempotencyFrom } from '../http/idempotency-key';

@Controller('v1/webhooks')
@RequirePermission('webhooks:*')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksClient) {}

  /** The answer carries the signing secret; a replay (same Idempotency-Key and body) the webhook's current one. */
  @Post()
  @HttpCode(201)
  create(@Ctx() ctx: RequestContext, @Body() body: WebhookCreateDto, @Headers('idempotency-key') key?: string) {
    return this.webhooks.create(ctx, body, idempotencyFrom(key, 'POST /v1/webhooks', body));
  }

  @Get()
  list(@Ctx() ctx: RequestContext, @Query() query: WebhookListQueryDto) {
    return this.webhooks.list(ctx, toListParams(query, LIST_ID_PREFIXES.webhook), query.status);
  }

  @Get(':id')
  get(@Ctx() ctx: RequestContext, @Param('id') id: string) {
    return this.webhooks.get(ctx, id);
  }

  @Patch(':id')
  update(@Ctx() ctx: RequestContext, @Param('id') id: string, @Body() body: WebhookUpdateDto) {
    return this.webhooks.update(ctx, id, body);
  }

  @Delete(':id')
  delete(@Ctx() ctx: RequestContext, @Param('id') id: string) {
    return this.webhooks.delete(ctx, id);
  }

  @Get(':id/secret')
  secret(@Ctx() ctx: RequestContext, @Param('id') id: string) {
    return this.webhooks.getSecret(ctx, id);
  }

  @Post(':id/secret/rotate')
  @HttpCode(200)
  rotateSecret(@Ctx() ctx: RequestContext, @Param('id') id: string) {
    return this.webhooks.rotateSecret(ctx, id);
  }

  @Get(':id/deliveries')
  deliveries(@Ctx() ctx: RequestContext, @Param('id') id: string, @Query() query: DeliveryListQueryDto) {
    return this.webhooks.listDeliveries(ctx, id, toListParams(query, LIST_ID_PREFIXES.webhookDelivery), query.status);
  }

  /** 202: the attempt happens right after the answer; the delivery log shows its outcome. */
  @Post(':id/deliveries/:deliveryId/retry')
  @HttpCode(202)
  retry(@Ctx() ctx: RequestContext, @Param('id') id: string, @Param('deliveryId') deliveryId: string) {
    return this.webhooks.retryDelivery(ctx, id, deliveryId);
  }

  @Post(':id/test')
  @HttpCode(202)
  test(@Ctx() ctx: RequestContext, @Param('id') id: string) {
    return this.webhooks.sendTest(ctx, id);
  }
}
