import { DOMAIN_EVENT_TYPES, EMAIL_EVENT_TYPES } from './event-types';

/**
 * JSON Schema (2020-12) of the event envelope, as published on the stream and
 * POSTed to webhooks. Internal services that publish events validate against it.
 */
export const EVENT_ENVELOPE_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://mailroom.dev/schemas/event-envelope.json',
  title: 'Mailroom event',
  type: 'object',
  required: ['id', 'type', 'createdAt', 'data'],
  properties: {
    id: { type: 'string', pattern: '^evt_[0-9A-HJKMNP-TV-Z]{26}$', description: 'unique; also the Nats-Msg-Id and the webhook event id header' },
    type: { enum: [...EMAIL_EVENT_TYPES, ...DOMAIN_EVENT_TYPES] },
    createdAt: { type: 'string', format: 'date-time' },
    mode: { enum: ['live', 'test'], description: 'test events reach only webhooks created with test keys' },
    data: { type: 'object' },
  },
  allOf: [
    {
      if: { properties: { type: { pattern: '^email\\.' } } },
      then: {
        properties: {
          data: {
            type: 'object',
            required: ['emailId', 'from', 'to', 'subject'],
            properties: {
              emailId: { type: 'string', pattern: '^email_' },
              from: { type: 'string' },
              to: { type: 'array', items: { type: 'string' } },
              subject: { type: 'string' },
              tags: { type: 'array', items: { type: 'string' } },
              recipient: { type: 'string', description: 'the recipient this event concerns (delivery events)' },
              smtp: {
                type: 'object',
                description: 'the SMTP reply (bounced, failed, delivery_delayed, delivered)',
                properties: { code: { type: 'integer' }, enhancedCode: { type: 'string' }, reply: { type: 'string' } },
              },
              url: { type: 'string', description: 'email.clicked: the original link' },
              userAgent: { type: 'string', description: 'email.opened / email.clicked' },
              ip: { type: 'string', description: 'email.opened / email.clicked' },
            },
          },
        },
      },
    },
    {
      if: { properties: { type: { pattern: '^domain\\.' } } },
      then: {
        properties: {
          data: {
            type: 'object',
            required: ['id', 'name'],
            properties: { id: { type: 'string', pattern: '^dom_' }, name: { type: 'string' }, status: { type: 'string' } },
          },
        },
      },
    },
  ],
} as const;
