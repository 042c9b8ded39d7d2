import type { ListEnvelope, ListParams } from '../common/list';
import type { RequestContext } from '../common/request-context';
import type { IdempotencyInput } from '../common/idempotency';

export const WEBHOOK_STATUSES = ['active', 'failing', 'disabled'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];

export const DELIVERY_STATUSES = ['pending', 'retrying', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface WebhookListItem {
  id: string;
  object: 'webhook';
  url: string;
  events: string[];
  status: WebhookStatus;
  lastDeliveryAt: string | null;
  createdAt: string;
}

export interface WebhookResponse extends WebhookListItem {
  description: string | null;
  /** The domainRestrictions of the key that created it: it receives only events of these domains. Empty: every domain. */
  domainRestrictions: string[];
  /** `success` or `failure`: the outcome of the latest attempt; null before the first. */
  lastDeliveryStatus: 'success' | 'failure' | null;
  /** Failed attempts since the last success. */
  failureCount: number;
}

/** The create answer: the only time besides GET …/secret that the secret is shown. */
export interface WebhookCreatedResponse extends WebhookResponse {
  secret: string;
}

/** Named like every object of the interface, which carries its type in `object`. */
export interface WebhookSecretResponse {
  object: 'webhook_secret';
  secret: string;
}

export interface WebhookSecretRotatedResponse extends WebhookSecretResponse {
  /** Until then deliveries are signed with the previous secret as well. */
  previousSecretExpiresAt: string;
}

export interface DeliveryAttemptResponse {
  attempt: number;
  at: string;
  responseCode: number | null;
  durationMs: number;
  error: string | null;
}

export interface DeliveryResponse {
  id: string;
  object: 'webhook_delivery';
  webhookId: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  responseCode: number | null;
  durationMs: number | null;
  error: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  /** Every attempt, oldest first. */
  attemptLog: DeliveryAttemptResponse[];
}

export interface WebhookCreateInput {
  url: string;
  events: string[];
  description?: string;
}

export interface WebhookUpdateInput {
  url?: string;
  events?: string[];
  description?: string | null;
  status?: 'active' | 'disabled';
}

export interface WebhookCreatePayload {
  ctx: RequestContext;
  input: WebhookCreateInput;
  idempotency?: IdempotencyInput;
}
export interface WebhookUpdatePayload {
  ctx: RequestContext;
  id: string;
  input: WebhookUpdateInput;
}
export interface WebhookByIdPayload {
  ctx: RequestContext;
  id: string;
}
export interface WebhookListPayload {
  ctx: RequestContext;
  params: ListParams;
  status?: WebhookStatus;
}
export interface DeliveryListPayload {
  ctx: RequestContext;
  webhookId: string;
  params: ListParams;
  status?: DeliveryStatus;
}
export interface DeliveryRetryPayload {
  ctx: RequestContext;
  webhookId: string;
  deliveryId: string;
}

export type WebhookList = ListEnvelope<WebhookListItem>;
export type DeliveryList = ListEnvelope<DeliveryResponse>;
