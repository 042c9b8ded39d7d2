import { EMAIL_LIMITS, EMAIL_STATUSES, RECIPIENT_STATUSES } from '@mailroom/contracts';
import type { JsonSchema } from './custom-validator-converters';
import { schemaRef } from './dto-schemas';
import { WEBHOOK_EVENT_ITEM } from './webhook-field-rules';

/**
 * Response shapes. They are TypeScript interfaces in libs/contracts, which leave
 * no runtime metadata, so they are written out here by hand, once, and matched
 * to routes by prefix (CRUD shapes) or by exact operation (everything else).
 */

const str = (extra: JsonSchema = {}): JsonSchema => ({ type: 'string', ...extra });
const strOrNull = (extra: JsonSchema = {}): JsonSchema => ({ type: ['string', 'null'], ...extra });
const time = str({ format: 'date-time' });
const timeOrNull = strOrNull({ format: 'date-time' });
const int = { type: 'integer' };
const strings = { type: 'array', items: { type: 'string' } };
const oneOf = (...values: string[]) => str({ enum: values });
/** An object whose every property is required unless listed; `name` pins its `object` field. */
const objectOf = (name: string, properties: Record<string, JsonSchema>, optional: string[] = []): JsonSchema => {
  const all = name ? { ...properties, object: { const: name } } : properties;
  return { type: 'object', required: Object.keys(all).filter((key) => !optional.includes(key)), properties: all };
};
const extend = (base: string, properties: Record<string, JsonSchema>, optional: string[] = []): JsonSchema => ({
  allOf: [schemaRef(base), { type: 'object', required: Object.keys(properties).filter((key) => !optional.includes(key)), properties }],
});

const apiKey = {
  id: str({ pattern: '^key_' }),
  object: str(),
  name: str(),
  mode: oneOf('live', 'test'),
  keyHint: str({ description: 'Prefix and last four characters.' }),
  permissions: strings,
  domainRestrictions: strings,
  ipRestrictions: strings,
  expiresAt: timeOrNull,
  lastUsedAt: timeOrNull,
  createdAt: time,
};
const recordStatus = oneOf('pending', 'verified');
const dnsRecord = { type: oneOf('TXT', 'CNAME'), host: str(), value: str(), purpose: oneOf('spf', 'dkim', 'dmarc') };
const domainListItem = {
  id: str({ pattern: '^dom_' }),
  object: str(),
  name: str(),
  status: oneOf('pending', 'verified', 'failed'),
  region: oneOf('us', 'eu'),
  spfStatus: recordStatus,
  dkimStatus: recordStatus,
  dmarcStatus: recordStatus,
  createdAt: time,
};
const tracking = {
  trackingDomain: str({ description: 'The custom tracking domain when one is set, else the host of TRACKING_BASE_URL.' }),
  trackingDomainStatus: str({
    enum: ['pending', 'verified', 'failed'],
    description: '`verified` for the default host; a custom tracking domain is `pending` until its CNAME to the tracking host verifies. Independent of `status`.',
  }),
};
const emailListItem = {
  id: str({ pattern: '^email_' }),
  object: str(),
  from: str(),
  to: strings,
  subject: str(),
  status: oneOf(...EMAIL_STATUSES),
  createdAt: time,
};
const webhookListItem = {
  id: str({ pattern: '^wh_' }),
  object: str(),
  url: str({ format: 'uri' }),
  events: { type: 'array', items: WEBHOOK_EVENT_ITEM },
  status: oneOf('active', 'failing', 'disabled'),
  lastDeliveryAt: timeOrNull,
  createdAt: time,
};
/**
 * The full domain, its records as `record`: the interface shows each record's `verified` in the retrieve answer only,
 * so the create answer's records (IssuedDnsRecord) have none, and those of GET and PATCH (DnsRecord) all have it.
 */
const domainWith = (record: string): JsonSchema =>
  extend(
    'DomainListItem',
    {
      dnsRecords: { type: 'array', items: schemaRef(record) },
      openTracking: { type: 'boolean', description: 'Whether html mail gets the open pixel (an email may override it).' },
      clickTracking: { type: 'boolean', description: 'Whether links in html mail are rewritten (an email may override it).' },
      dkimRotation: {
        oneOf: [
          { type: 'null' },
          objectOf('', {
            status: { const: 'pending' },
            selector: str(),
            record: schemaRef(record),
            startedAt: time,
          }),
        ],
        description: "A DKIM key rotation waiting for its CNAME (null when none): the new key signs once a check finds `record`; dnsRecords keeps the active key's.",
      },
      ...tracking,
      verifiedAt: time,
    },
    ['verifiedAt'],
  );
const analyticsCounts = Object.fromEntries(
  ['sent', 'delivered', 'bounced', 'failed', 'complained', 'suppressed', 'opens', 'uniqueOpens', 'clicks', 'uniqueClicks'].map((key) => [key, int]),
);

export const RESPONSE_COMPONENTS: Record<string, JsonSchema> = {
  ApiKey: objectOf('api_key', apiKey),
  ApiKeyCreated: extend('ApiKey', { key: str({ description: 'The secret; shown in this response only.' }) }),
  IssuedDnsRecord: objectOf('', dnsRecord),
  DnsRecord: objectOf('', { ...dnsRecord, verified: { type: 'boolean', description: 'Whether the last conclusive check found the record.' } }),
  DomainListItem: objectOf('domain', domainListItem),
  Domain: domainWith('DnsRecord'),
  DomainCreated: domainWith('IssuedDnsRecord'),
  DomainVerification: extend(
    'DomainListItem',
    {
      verifiedAt: time,
      missingRecords: { type: 'array', items: schemaRef('IssuedDnsRecord') },
      recordProblems: { type: 'array', items: objectOf('', { purpose: str(), host: str(), problem: str() }) },
      dnsErrors: { type: 'array', items: objectOf('', { purpose: str(), host: str(), error: str() }) },
      ...tracking,
      trackingDomainProblem: str({ description: "Why the custom tracking domain's CNAME does not count yet (missing, or pointing elsewhere)." }),
      trackingDomainDnsError: str({ description: "The custom tracking domain's lookup failed (timeout, SERVFAIL); its status did not change." }),
    },
    ['verifiedAt', 'missingRecords', 'recordProblems', 'dnsErrors', 'trackingDomainProblem', 'trackingDomainDnsError'],
  ),
  EmailListItem: objectOf('email', emailListItem),
  Email: extend('EmailListItem', {
    cc: strings,
    bcc: strings,
    replyTo: strings,
    html: strOrNull(),
    text: strOrNull(),
    headers: { type: 'object', additionalProperties: str() },
    attachments: {
      type: 'array',
      items: objectOf('', { filename: str(), contentType: strOrNull(), contentId: strOrNull(), size: int }),
    },
    tags: strings,
    metadata: { type: 'object', additionalProperties: str() },
    opens: int,
    clicks: int,
    firstOpenedAt: timeOrNull,
    lastOpenedAt: timeOrNull,
    deliveredAt: timeOrNull,
    complainedAt: timeOrNull,
    scheduledAt: timeOrNull,
    tracking: objectOf('', { opens: { type: ['boolean', 'null'] }, clicks: { type: ['boolean', 'null'] } }),
    recipients: {
      type: 'array',
      items: objectOf('', {
        address: str({ description: 'The bare address as sent to: the local part as written (its case kept), the domain in lower-case punycode.' }),
        kind: oneOf('to', 'cc', 'bcc'),
        status: oneOf(...RECIPIENT_STATUSES),
        attempts: int,
        smtpCode: { type: ['integer', 'null'] },
        smtpReply: strOrNull(),
        nextAttemptAt: timeOrNull,
        attemptLog: {
          type: 'array',
          description: `Its last ${EMAIL_LIMITS.attemptLogLength} delivery attempts, oldest first.`,
          items: objectOf('', {
            attempt: int,
            at: str({ format: 'date-time', description: "When the attempt's outcome was recorded." }),
            status: str({ enum: ['sent', 'delivered', 'deferred', 'bounced', 'failed'], description: 'The recipient\'s status after the attempt.' }),
            smtpCode: { type: ['integer', 'null'] },
            smtpReply: strOrNull(),
            host: strOrNull({ description: 'The mail server the reply is from: the MX host (or the relay) by name; null when none was tried, and in test mode.' }),
          }),
        },
      }),
    },
  }),
  EmailScheduleChange: extend('EmailListItem', { scheduledAt: timeOrNull }),
  EmailBatchResult: objectOf('list', {
    data: { type: 'array', items: schemaRef('EmailListItem') },
    hasMore: { const: false, description: 'Every email of the batch is in data.' },
    totalCount: { type: 'integer', description: 'The number of emails accepted.' },
  }),
  Suppression: objectOf('suppression', {
    email: str(),
    reason: oneOf('manual', 'unsubscribe', 'complaint', 'bounce'),
    details: strOrNull(),
    createdAt: time,
  }),
  SuppressionDeleted: objectOf('suppression', { email: str(), deleted: { const: true } }),
  WebhookListItem: objectOf('webhook', webhookListItem),
  Webhook: extend('WebhookListItem', {
    description: strOrNull(),
    domainRestrictions: {
      type: 'array',
      items: { type: 'string' },
      description: "The domainRestrictions of the API key that created it: it receives only events of these domains. Empty: every domain's.",
    },
    lastDeliveryStatus: { enum: ['success', 'failure', null] },
    failureCount: int,
  }),
  WebhookCreated: extend('Webhook', { secret: str({ description: 'whsec_…; also readable at GET /v1/webhooks/{id}/secret.' }) }),
  WebhookSecret: objectOf('webhook_secret', { secret: str() }),
  WebhookSecretRotated: objectOf('webhook_secret', {
    secret: str(),
    previousSecretExpiresAt: str({ format: 'date-time', description: 'Until then deliveries carry a signature with each secret.' }),
  }),
  WebhookDelivery: objectOf('webhook_delivery', {
    id: str({ pattern: '^whd_' }),
    webhookId: str(),
    eventId: str(),
    eventType: str(),
    status: oneOf('pending', 'retrying', 'succeeded', 'failed'),
    attempts: int,
    responseCode: { type: ['integer', 'null'] },
    durationMs: { type: ['integer', 'null'] },
    error: strOrNull(),
    nextAttemptAt: timeOrNull,
    createdAt: time,
    attemptLog: {
      type: 'array',
      items: objectOf('', { attempt: int, at: time, responseCode: { type: ['integer', 'null'] }, durationMs: int, error: strOrNull() }),
    },
  }),
  Analytics: objectOf('analytics', {
    fromDate: time,
    toDate: time,
    interval: oneOf('hour', 'day'),
    totals: objectOf('', { ...analyticsCounts, deliveryRate: { type: 'number' }, bounceRate: { type: 'number' }, openRate: { type: 'number' }, clickRate: { type: 'number' } }),
    series: { type: 'array', items: objectOf('', { ...analyticsCounts, start: time }) },
  }),
  Deleted: { type: 'object', required: ['id', 'object', 'deleted'], properties: { id: str(), object: str(), deleted: { const: true } } },
  Health: objectOf('', { status: oneOf('ok', 'unavailable'), services: { type: 'object', additionalProperties: oneOf('ok', 'down') } }, ['services']),
};

/** `{object:'list', data, hasMore, totalCount}` around items of one schema. */
export const listOf = (item: string): JsonSchema => ({
  type: 'object',
  required: ['object', 'data', 'hasMore', 'totalCount'],
  properties: { object: { const: 'list' }, data: { type: 'array', items: schemaRef(item) }, hasMore: { type: 'boolean' }, totalCount: int },
});

export interface ResourceResponses {
  /** The type its objects name in `object`, which the answer to DELETE /{id} names too. */
  object: string;
  /** GET/PATCH /{id}. */
  item: string;
  /** The items of GET / (a list envelope). */
  listItem: string;
  /** POST / (defaults to item). */
  created?: string;
}

/** `Deleted`, naming the type of what was deleted as the interface's DELETE /v1/domains/{id} does (`object: "domain"`). */
const deletedOf = (object: string): JsonSchema => ({ allOf: [schemaRef('Deleted'), { type: 'object', properties: { object: { const: object } } }] });

/** CRUD shapes by collection path: `GET /` lists, `POST /` creates, `GET|PATCH /{id}` is one item, `DELETE /{id}` is Deleted of its type. */
export const RESPONSES_BY_PREFIX: Record<string, ResourceResponses> = {
  '/v1/api-keys': { object: 'api_key', item: 'ApiKey', listItem: 'ApiKey', created: 'ApiKeyCreated' },
  '/v1/domains': { object: 'domain', item: 'Domain', listItem: 'DomainListItem', created: 'DomainCreated' },
  '/v1/emails': { object: 'email', item: 'Email', listItem: 'EmailListItem' },
  '/v1/suppressions': { object: 'suppression', item: 'Suppression', listItem: 'Suppression' },
  '/v1/webhooks': { object: 'webhook', item: 'Webhook', listItem: 'WebhookListItem', created: 'WebhookCreated' },
};

export interface OperationResponse {
  description?: string;
  schema?: JsonSchema;
  /** For routes that answer something other than JSON. */
  contentType?: string;
  /** Another status answered with the same body, not the error shape (GET /health: 503 while a service is down). */
  sameBodyAlso?: { status: number; description: string };
}

const SCHEDULE_CHANGE_ANSWER = 'The full email (as GET /v1/emails/{id}) for a key that also holds emails:read; otherwise EmailScheduleChange: the list item\'s fields and scheduledAt, without the content.';

/** Everything that is not plain CRUD. Keys are `METHOD /path`; the e2e test fails on a key that names no route. */
export const RESPONSES_BY_OPERATION: Record<string, OperationResponse> = {
  'GET /v1/domains/dkim-zone': {
    description:
      'The DKIM zone as an RFC 1035 zone file, for operators who host DKIM_ZONE on their own DNS. A key with domainRestrictions gets only its own domains\' records.',
    contentType: 'text/plain',
    schema: { type: 'string', contentMediaType: 'text/plain' },
  },
  'PATCH /v1/domains/{id}': { description: 'The updated domain. A new trackingDomain is `pending` until its CNAME verifies.', schema: schemaRef('Domain') },
  'POST /v1/domains/{id}/dkim/rotate': {
    description: 'The domain, its new DKIM key pending in dkimRotation (the CNAME to publish) until a check finds the CNAME and makes it the active key.',
    schema: schemaRef('Domain'),
  },
  'POST /v1/domains/{id}/verify': { description: 'The verification result: verifiedAt, or the records still missing.', schema: schemaRef('DomainVerification') },
  'POST /v1/emails': { description: 'Accepted: queued, or scheduled when scheduledAt is given.', schema: schemaRef('Email') },
  'POST /v1/emails/batch': { description: 'Accepted, all or nothing; one item per email in request order.', schema: schemaRef('EmailBatchResult') },
  'POST /v1/emails/{id}/cancel': { description: `The cancelled email. ${SCHEDULE_CHANGE_ANSWER}`, schema: { anyOf: [schemaRef('Email'), schemaRef('EmailScheduleChange')] } },
  'PATCH /v1/emails/{id}': { description: `The rescheduled email. ${SCHEDULE_CHANGE_ANSWER}`, schema: { anyOf: [schemaRef('Email'), schemaRef('EmailScheduleChange')] } },
  'DELETE /v1/suppressions/{email}': { description: 'The address may receive mail again.', schema: schemaRef('SuppressionDeleted') },
  'GET /v1/webhooks/{id}/secret': { schema: schemaRef('WebhookSecret') },
  'POST /v1/webhooks/{id}/secret/rotate': { schema: schemaRef('WebhookSecretRotated') },
  'GET /v1/webhooks/{id}/deliveries': { description: 'The delivery log, newest first.', schema: listOf('WebhookDelivery') },
  'POST /v1/webhooks/{id}/deliveries/{deliveryId}/retry': { description: 'The attempt happens right after this answer.', schema: schemaRef('WebhookDelivery') },
  'POST /v1/webhooks/{id}/test': { description: 'A webhook.test event is on its way to this endpoint only.', schema: schemaRef('WebhookDelivery') },
  'GET /v1/analytics': { schema: schemaRef('Analytics') },
  'GET /health': {
    description: 'Every service answers.',
    schema: schemaRef('Health'),
    sameBodyAlso: { status: 503, description: 'A service does not answer; the body names it.' },
  },
  'GET /health/live': { description: 'The process serves HTTP.', schema: schemaRef('Health') },
  'GET /t/o/{token}': { description: 'A 1×1 transparent GIF, whether or not the token verifies; it counts an open only under the host the token was sent with.', contentType: 'image/gif' },
  'GET /t/c/{token}': { description: '302 redirect to the tracked link (the status is 302, not 200); 404 for a token that does not verify or was sent under another host.' },
  'GET /openapi.json': { description: 'This document.', schema: { type: 'object' } },
  'GET /docs': { description: 'The interactive reference (Swagger UI).', contentType: 'text/html' },
};

/** The success response of one operation; an unknown shape is a generic object rather than a guess. */
export function successResponse(method: string, path: string): OperationResponse {
  const exact = RESPONSES_BY_OPERATION[`${method.toUpperCase()} ${path}`];
  if (exact) return exact;
  const prefix = Object.keys(RESPONSES_BY_PREFIX)
    .filter((candidate) => path === candidate || path.startsWith(`${candidate}/`))
    .sort((a, b) => b.length - a.length)[0];
  if (prefix) {
    const shapes = RESPONSES_BY_PREFIX[prefix];
    const rest = path.slice(prefix.length);
    if (rest === '' && method === 'get') return { description: 'A page, newest first.', schema: listOf(shapes.listItem) };
    if (rest === '' && method === 'post') return { description: 'Created.', schema: schemaRef(shapes.created ?? shapes.item) };
    if (/^\/\{[^}/]+\}$/.test(rest) && method === 'delete') return { description: 'Deleted.', schema: deletedOf(shapes.object) };
    if (/^\/\{[^}/]+\}$/.test(rest) && ['get', 'patch', 'put'].includes(method)) return { schema: schemaRef(shapes.item) };
  }
  return { description: 'Success.', schema: { type: 'object' } };
}
