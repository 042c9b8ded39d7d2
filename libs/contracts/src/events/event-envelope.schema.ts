import { WEBHOOK_TEST_EVENT } from '../webhooks/event-kinds';
import { DOMAIN_EVENT_TYPES, EMAIL_EVENT_TYPES } from './event-types';

/**
 * The kinds internal services report (README, "Publishing from an internal
 * service"): their events reach webhooks as published, naming only the
 * recipient (and perhaps the email), without the email summary.
 */
const REPORTED_KINDS = ['email.complained', 'email.bounced'];

/** The email kinds Mailroom writes itself, whose data always carries the email summary. */
const SUMMARIZED_KINDS = EMAIL_EVENT_TYPES.filter((kind) => !REPORTED_KINDS.includes(kind));

/**
 * JSON Schema (2020-12) of the event envelope, as published on the stream and
 * POSTed to webhooks (plus `webhook.test`, which only POST …/test sends).
 * Internal services that publish events validate against it. It must admit
 * every payload Mailroom sends: a receiver that validates with it would
 * otherwise refuse real events (an open from a client without a User-Agent,
 * a connection that failed before any SMTP reply, a reported complaint).
 */
export const EVENT_ENVELOPE_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://mailroom.dev/schemas/event-envelope.json',
  title: 'Mailroom event',
  type: 'object',
  required: ['id', 'type', 'createdAt', 'data'],
  properties: {
    // As every consumer reads an event off the stream (parseEventEnvelope), and so as webhooks receive it: the id and kind
    // of an internal service's event are its own. Narrower, the schema refused events Mailroom delivers, and a receiver
    // validating with it answered them with errors until its webhook was disabled.
    id: {
      type: 'string',
      pattern: '^[!-~]{1,200}$',
      description:
        "unique; also the Nats-Msg-Id and the webhook event id header. evt_<ULID> on Mailroom's own events; an internal service's own id (1 to 200 printable ASCII characters without spaces) on its events",
    },
    type: {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      examples: [...EMAIL_EVENT_TYPES, ...DOMAIN_EVENT_TYPES, WEBHOOK_TEST_EVENT],
      description: 'one of the kinds listed under Events, or webhook.test; a webhook for * also receives kinds an internal service publishes that Mailroom does not define',
    },
    createdAt: { type: 'string', format: 'date-time' },
    mode: { enum: ['live', 'test'], description: 'test events reach only webhooks created with test keys' },
    data: { type: 'object' },
  },
  allOf: [
    {
      if: { properties: { type: { enum: SUMMARIZED_KINDS } } },
      then: { properties: { data: { type: 'object', required: ['emailId', 'from', 'to', 'subject'] } } },
    },
    {
      if: { properties: { type: { enum: REPORTED_KINDS } } },
      then: { properties: { data: { type: 'object', required: ['recipient'] } } },
    },
    {
      if: { properties: { type: { enum: EMAIL_EVENT_TYPES } } },
      then: {
        properties: {
          data: {
            type: 'object',
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
                properties: {
                  code: { type: ['integer', 'null'], description: 'null when no server answered' },
                  enhancedCode: { type: 'string' },
                  reply: { type: 'string' },
                  host: { type: ['string', 'null'], description: "the mail server the reply is from: the MX host's name, or the relay's; null when no server was tried, and in test mode" },
                },
              },
              url: { type: 'string', description: 'email.clicked: the original link' },
              userAgent: { type: ['string', 'null'], description: 'email.opened / email.clicked; null when the client sent none' },
              ip: { type: ['string', 'null'], description: 'email.opened / email.clicked' },
            },
          },
        },
      },
    },
    {
      if: { properties: { type: { enum: DOMAIN_EVENT_TYPES } } },
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
    {
      if: { properties: { type: { const: WEBHOOK_TEST_EVENT } } },
      then: {
        properties: {
          data: { type: 'object', required: ['webhookId'], properties: { webhookId: { type: 'string', pattern: '^wh_' }, message: { type: 'string' } } },
        },
      },
    },
  ],
} as const;
