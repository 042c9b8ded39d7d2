import { WEBHOOK_EVENT_ID_HEADER, WEBHOOK_EVENT_TYPE_HEADER, WEBHOOK_SIGNATURE_HEADER } from './verify-signature';

/** The headers of a webhook delivery, by what they carry: the dispatcher sends them, the OpenAPI document describes them. */
export const DELIVERY_HEADER = {
  signature: WEBHOOK_SIGNATURE_HEADER,
  eventId: WEBHOOK_EVENT_ID_HEADER,
  /** Standard Webhooks' name for the event id, so generic receivers de-duplicate too. */
  standardWebhookId: 'webhook-id',
  eventType: WEBHOOK_EVENT_TYPE_HEADER,
  /** The delivery (one per webhook and event), and which attempt of it this is, from 1. */
  deliveryId: 'service-delivery-id',
  attempt: 'service-delivery-attempt',
  userAgent: 'user-agent',
} as const;

/** Every delivery's User-Agent, for receivers (and their firewalls) that admit webhook calls by it. */
export const WEBHOOK_USER_AGENT = 'Mailroom-Webhooks/1.0';
