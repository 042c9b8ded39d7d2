import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  DeliveryListPayload,
  DeliveryRetryPayload,
  WebhookByIdPayload,
  WebhookCreatePayload,
  WebhookListPayload,
  WebhooksSubjects,
  WebhookUpdatePayload,
} from '@mailroom/contracts';
import { DeliveriesService } from '../deliveries/deliveries.service';
import { WebhooksService } from './webhooks.service';

@Controller()
export class WebhooksController {
  constructor(
    private readonly webhooks: WebhooksService,
    private readonly deliveries: DeliveriesService,
  ) {}

  @MessagePattern(WebhooksSubjects.create)
  create(@Payload() payload: WebhookCreatePayload) {
    return this.webhooks.create(payload);
  }

  @MessagePattern(WebhooksSubjects.list)
  list(@Payload() { ctx, params, status }: WebhookListPayload) {
    return this.webhooks.list(ctx, params, status);
  }

  @MessagePattern(WebhooksSubjects.get)
  get(@Payload() { ctx, id }: WebhookByIdPayload) {
    return this.webhooks.get(ctx, id);
  }

  @MessagePattern(WebhooksSubjects.update)
  update(@Payload() payload: WebhookUpdatePayload) {
    return this.webhooks.update(payload);
  }

  @MessagePattern(WebhooksSubjects.delete)
  delete(@Payload() { ctx, id }: WebhookByIdPayload) {
    return this.webhooks.delete(ctx, id);
  }

  @MessagePattern(WebhooksSubjects.getSecret)
  getSecret(@Payload() { ctx, id }: WebhookByIdPayload) {
    return this.webhooks.getSecret(ctx, id);
  }

  @MessagePattern(WebhooksSubjects.rotateSecret)
  rotateSecret(@Payload() { ctx, id }: WebhookByIdPayload) {
    return this.webhooks.rotateSecret(ctx, id);
  }

  @MessagePattern(WebhooksSubjects.listDeliveries)
  listDeliveries(@Payload() payload: DeliveryListPayload) {
    return this.deliveries.list(payload);
  }

  @MessagePattern(WebhooksSubjects.retryDelivery)
  retryDelivery(@Payload() payload: DeliveryRetryPayload) {
    return this.deliveries.retry(payload);
  }

  @MessagePattern(WebhooksSubjects.sendTest)
  sendTest(@Payload() { ctx, id }: WebhookByIdPayload) {
    return this.deliveries.sendTest(ctx, id);
  }
}
