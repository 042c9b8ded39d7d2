import { DELIVERY_HEADER, WEBHOOK_USER_AGENT } from '@mailroom/contracts';
import type { ClaimedDelivery } from './dispatch.repository';

/** Printable ASCII without spaces: what every kind Mailroom writes is, and what any HTTP stack carries unchanged. */
const HEADER_TOKEN = /^[\x21-\x7e]+$/;

/** The headers of one attempt of a delivery, around its signature. */
export function deliveryHeaders(delivery: ClaimedDelivery, signature: string): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    [DELIVERY_HEADER.userAgent]: WEBHOOK_USER_AGENT,
    [DELIVERY_HEADER.signature]: signature,
    [DELIVERY_HEADER.eventId]: delivery.eventId,
    [DELIVERY_HEADER.standardWebhookId]: delivery.eventId,
    [DELIVERY_HEADER.deliveryId]: delivery.id,
    [DELIVERY_HEADER.attempt]: String(delivery.attempts + 1),
  };
  // An internal publisher may name a kind in any characters; Node refuses some in a header (and would fail every
  // attempt), others arrive mangled. Such a kind is left to the body's `type`.
  if (HEADER_TOKEN.test(delivery.payload.type)) headers[DELIVERY_HEADER.eventType] = delivery.payload.type;
  return headers;
}
