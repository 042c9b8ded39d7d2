import { WEBHOOK_EVENT_KINDS } from '@mailroom/contracts';
import type { JsonSchema } from './custom-validator-converters';
import { FieldSchemas, withFieldSchemas } from './field-schemas';

/** What a webhook's `events` may hold: `*` or the kinds Mailroom defines. Request and answer schemas share it. */
export const WEBHOOK_EVENT_ITEM: JsonSchema = { type: 'string', enum: ['*', ...WEBHOOK_EVENT_KINDS] };

const EVENTS: JsonSchema = {
  minItems: 1,
  items: WEBHOOK_EVENT_ITEM,
  description: 'Event kinds to receive, or `*` for every kind (those internal services publish included). Duplicates are collapsed.',
};

/**
 * The gateway's DTOs check `events` in shape only; the dispatcher checks each
 * kind (webhookEventsProblem, naming `events[i]`), which reflection cannot
 * see. Without this the document took any string and an empty list, both
 * answered 422.
 */
export const WEBHOOK_FIELD_RULES: FieldSchemas = {
  WebhookCreateDto: { events: EVENTS },
  WebhookUpdateDto: { events: EVENTS },
};

export function withWebhookFieldRules(schemas: Record<string, JsonSchema>): Record<string, JsonSchema> {
  return withFieldSchemas(schemas, WEBHOOK_FIELD_RULES, 'WEBHOOK_FIELD_RULES');
}
