import type { WebhookListItem, WebhookResponse } from '@mailroom/contracts';
import { WebhookEntity } from '../database/entities/webhook.entity';

export function toListItem(entity: WebhookEntity): WebhookListItem {
  return {
    id: entity.id,
    object: 'webhook',
    url: entity.url,
    events: entity.events,
    status: entity.status,
    lastDeliveryAt: entity.lastDeliveryAt?.toISOString() ?? null,
    createdAt: entity.createdAt.toISOString(),
  };
}

export function toResponse(entity: WebhookEntity): WebhookResponse {
  return Object.assign(toListItem(entity), {
    description: entity.description,
    domainRestrictions: entity.domainRestrictions,
    lastDeliveryStatus: entity.lastDeliveryStatus,
    failureCount: entity.failureCount,
  });
}
