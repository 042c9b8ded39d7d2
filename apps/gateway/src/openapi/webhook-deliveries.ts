import { DELIVERY_HEADER, EVENT_ENVELOPE_SCHEMA, WEBHOOK_USER_AGENT } from '@mailroom/contracts';
import type { JsonSchema } from './custom-validator-converters';

/** The envelope's JSON Schema as a component: the document is 2020-12 already, and an `$id` would rebase its place. */
const { $schema: _dialect, $id: _id, ...eventSchema } = EVENT_ENVELOPE_SCHEMA;
export const EVENT_COMPONENT: JsonSchema = eventSchema;

/** An event id as consumers take it off the stream (parseEventEnvelope). */
const EVENT_ID = { type: 'string', pattern: '^[!-~]{1,200}$' };

function header(name: string, required: boolean, description: string, schema: JsonSchema): JsonSchema {
  return { name, in: 'header', required, description, schema };
}

/**
 * OpenAPI 3.1's `webhooks`: the request the dispatcher POSTs to a webhook's URL, so a reader (or a code generator)
 * of the document sees the events, how they are signed and what answer counts, not only the routes that manage webhooks.
 */
export const WEBHOOKS: Record<string, JsonSchema> = {
  event: {
    post: {
      operationId: 'Webhook_event',
      tags: ['webhooks'],
      summary: 'An event, POSTed to a webhook URL',
      description:
        'Sent to each webhook subscribed to the event\'s kind, once per attempt. Verify the signature over the **raw** body before anything else, in constant time: ' +
        '`service-signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, keyed with the whole `whsec_…` secret as UTF-8 bytes, ' +
        'one `v1=` per valid secret during a rotation; refuse a timestamp more than 5 minutes away. De-duplicate on the event id: a delivery can arrive more than once.',
      security: [],
      parameters: [
        header(DELIVERY_HEADER.signature, true, 't=<unix seconds>,v1=<hex HMAC-SHA256>[,v1=…]: the signature of the raw body (see the description).', {
          type: 'string',
          pattern: '^t=[0-9]+(,v1=[0-9a-f]{64}){1,2}$',
        }),
        header(DELIVERY_HEADER.eventId, true, "The event's id, the body's `id`: the same on every attempt and every webhook.", EVENT_ID),
        header(DELIVERY_HEADER.standardWebhookId, true, 'The event id again, under the Standard Webhooks name.', EVENT_ID),
        header(
          DELIVERY_HEADER.eventType,
          false,
          "The event's kind, the body's `type`, to route on before parsing (not signed: trust the body's); left out for a kind an internal service named in anything but printable ASCII without spaces.",
          { type: 'string', pattern: '^[!-~]+$' },
        ),
        header(DELIVERY_HEADER.deliveryId, true, 'The delivery of this event to this webhook (`GET /v1/webhooks/{id}/deliveries`).', { type: 'string', pattern: '^whd_' }),
        header(DELIVERY_HEADER.attempt, true, 'Which attempt of the delivery this is, from 1.', { type: 'string', pattern: '^[1-9][0-9]*$' }),
        header(DELIVERY_HEADER.userAgent, true, 'The same on every delivery, for a firewall that admits webhook calls by it.', { const: WEBHOOK_USER_AGENT }),
      ],
      requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Event' } } } },
      responses: {
        '2XX': { description: 'Received: the delivery succeeded. The body of the answer is not read beyond WEBHOOK_MAX_RESPONSE_BYTES.' },
        '410': { description: 'Gone: the webhook is disabled at once.' },
        '429': { description: 'Retried no sooner than its Retry-After (seconds or an HTTP date, up to 24 hours).' },
        '503': { description: 'Retried no sooner than its Retry-After (seconds or an HTTP date, up to 24 hours).' },
        default: {
          description:
            'Any other answer (a redirect included, never followed), or none within WEBHOOK_TIMEOUT_MS (15 s), fails the attempt; it is retried on WEBHOOK_RETRY_SCHEDULE.',
        },
      },
    },
  },
};
