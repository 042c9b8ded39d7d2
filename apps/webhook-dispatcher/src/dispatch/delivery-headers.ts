import { WEBHOOK_EVENT_ID_HEADER, WEBHOOK_EVENT_TYPE_HEADER, WEBHOOK_SIGNATURE_HEADER } from '@mailroom/contracts';
import type { ClaimedDelivery } from './dispatch.repository';

/** Printable ASCII without spaces: what every kind Mailroom writes is, and what any HTTP stack carries unchanged. */
const HEADER_TOKEN = /^[\x21-\x7e]+$/;

/** The headers of one attempt of a delivery, around its signature. */
export function deliveryHeaders(delivery: ClaimedDelivery, signature: string): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'Mailroom-Webhooks/1.0',
    [WEBHOOK_SIGNATURE_HEADER]: signature,
    [WEBHOOK_EVENT_ID_HEADER]: delivery.eventId,
    // Standard Webhooks' name for the same id, so generic receivers de-duplicate too.
    'webhook-id': delivery.eventId,
    'service-delivery-id': delivery.id,
    'service-delivery-attempt': String(delivery.attempts + 1),
  };
  // An internal publisher may name a kind in any characters; Node refuses some in a header (and would fail every
  // attempt), others arrive mangled. Such a kind is left to the body's `type`.
  if (HEADER_TOKEN.test(delivery.payload.type)) headers[WEBHOOK_EVENT_TYPE_HEADER] = delivery.payload.type;
  return headers;
}
