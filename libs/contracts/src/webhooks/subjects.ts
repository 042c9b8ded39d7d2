import type { DeletedResponse } from '../common/list';
import type {
  DeliveryList,
  DeliveryListPayload,
  DeliveryResponse,
  DeliveryRetryPayload,
  WebhookByIdPayload,
  WebhookCreatedResponse,
  WebhookCreatePayload,
  WebhookList,
  WebhookListPayload,
  WebhookResponse,
  WebhookSecretResponse,
  WebhookSecretRotatedResponse,
  WebhookUpdatePayload,
} from './webhook.types';

/** Request-reply subjects of the webhook-dispatcher. Renaming one is a migration: old replicas stop answering. */
export const WebhooksSubjects = {
  create: 'webhooks.webhook.create',
  list: 'webhooks.webhook.list',
  get: 'webhooks.webhook.get',
  update: 'webhooks.webhook.update',
  delete: 'webhooks.webhook.delete',
  getSecret: 'webhooks.secret.get',
  rotateSecret: 'webhooks.secret.rotate',
  listDeliveries: 'webhooks.delivery.list',
  retryDelivery: 'webhooks.delivery.retry',
  sendTest: 'webhooks.webhook.test',
} as const;

export interface WebhooksRpc {
  [WebhooksSubjects.create]: { payload: WebhookCreatePayload; reply: WebhookCreatedResponse };
  [WebhooksSubjects.list]: { payload: WebhookListPayload; reply: WebhookList };
  [WebhooksSubjects.get]: { payload: WebhookByIdPayload; reply: WebhookResponse };
  [WebhooksSubjects.update]: { payload: WebhookUpdatePayload; reply: WebhookResponse };
  [WebhooksSubjects.delete]: { payload: WebhookByIdPayload; reply: DeletedResponse<'webhook'> };
  [WebhooksSubjects.getSecret]: { payload: WebhookByIdPayload; reply: WebhookSecretResponse };
  [WebhooksSubjects.rotateSecret]: { payload: WebhookByIdPayload; reply: WebhookSecretRotatedResponse };
  [WebhooksSubjects.listDeliveries]: { payload: DeliveryListPayload; reply: DeliveryList };
  [WebhooksSubjects.retryDelivery]: { payload: DeliveryRetryPayload; reply: DeliveryResponse };
  [WebhooksSubjects.sendTest]: { payload: WebhookByIdPayload; reply: DeliveryResponse };
}
