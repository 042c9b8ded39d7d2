import { ErrorCode, HTTP_STATUS_BY_CODE } from '@mailroom/errors';
import type { JsonSchema } from './custom-validator-converters';
import { rateLimitHeadersOf } from './rate-limit-headers';
import type { DiscoveredRoute } from './route-discovery';

/** The one error body of the API, `{ error: { code, message } }`, with every code libs/errors knows. */
export const ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['error'],
  additionalProperties: false,
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      additionalProperties: false,
      properties: {
        code: { type: 'string', enum: Object.values(ErrorCode) },
        message: { type: 'string', description: 'Human-readable; for validation_error it names the field, e.g. `to[1]: ...`.' },
      },
    },
  },
};

const codesFor = (status: number) =>
  Object.entries(HTTP_STATUS_BY_CODE)
    .filter(([, mapped]) => mapped === status)
    .map(([code]) => `\`${code}\``)
    .join(' or ');

const WHEN: Record<number, string> = {
  400: 'The body is not valid JSON (the message quotes the parser) or not UTF-8, or the request is not valid HTTP.',
  401: 'The Authorization header is missing or the key is malformed, unknown, deleted, expired or of the wrong mode. Checked before the body is read.',
  403: 'The key lacks the permission this operation needs, the request comes from outside its ipRestrictions, or a domainRestriction excludes the resource.',
  404: 'No resource has this id (or the key may not see it).',
  413: 'The body is larger than BODY_LIMIT_BYTES, or the request (an email, say) or the answer larger than the NATS server\'s max_payload.',
  415: 'A body (on any method) is not application/json, declares a charset other than utf-8, or is compressed (a Content-Encoding other than identity, or a Transfer-Encoding other than chunked).',
  422: 'A field, query parameter or path parameter is invalid, or is a query parameter or body field the operation does not read; the message names it.',
  429: 'The key is over its rate limit, or the client address made too many failed authentications (AUTH_FAILURE_LIMIT); retry after Retry-After seconds.',
  500: 'An unexpected error; it is logged with an error id and no detail is shown.',
  503: 'A service behind the gateway is not running, did not answer in time, or cannot reach its database or NATS, or the gateway is shutting down (any route, public ones too, on a connection still open); safe to retry.',
};

/** Why a request with an Idempotency-Key answers 409: the first is final, the second is to be retried. */
const KEYED_CONFLICT =
  'The Idempotency-Key was used with a different body (`conflict`, final), or a request with it was still being processed 2 s after this one arrived (`idempotency_key_in_use`: retry it later with the same key).';
const KEYED_CODES = [ErrorCode.Conflict, ErrorCode.IdempotencyKeyInUse];

/**
 * Operations that can answer 409, with the codes they answer it with (409 is
 * `conflict`, `in_use` and `idempotency_key_in_use`) and why. Keyed `METHOD /path` as in the
 * document; the e2e test fails when a key here names no route.
 */
export const CONFLICTS: Record<string, { codes: readonly ErrorCode[]; why: string }> = {
  'PATCH /v1/api-keys/{id}': { codes: [ErrorCode.Conflict], why: 'The key has expired, and its expiresAt can no longer change; create a new key.' },
  'POST /v1/domains': { codes: [ErrorCode.Conflict], why: 'A domain with this name already exists.' },
  'POST /v1/domains/{id}/dkim/rotate': { codes: [ErrorCode.Conflict], why: 'The domain is not verified (verify it first), or it has used every DKIM selector of this month.' },
  'DELETE /v1/domains/{id}': { codes: [ErrorCode.InUse], why: 'Emails from this domain are still queued, scheduled or being delivered.' },
  'POST /v1/emails': { codes: KEYED_CODES, why: KEYED_CONFLICT },
  'POST /v1/emails/batch': { codes: KEYED_CODES, why: KEYED_CONFLICT },
  'POST /v1/emails/{id}/cancel': { codes: [ErrorCode.Conflict], why: 'Only a scheduled email can be cancelled; the message names the current state.' },
  'PATCH /v1/emails/{id}': { codes: [ErrorCode.Conflict], why: 'Only a scheduled email can be rescheduled; the message names the current state.' },
  'POST /v1/webhooks': {
    codes: KEYED_CODES,
    why: `${KEYED_CONFLICT} Also \`conflict\` for a replay whose webhook has since been deleted (use a new key to create another), or whose secret can no longer be decrypted (rotate it).`,
  },
  'GET /v1/webhooks/{id}/secret': {
    codes: [ErrorCode.Conflict],
    why: 'The stored secret could not be decrypted (ENCRYPTION_KEY changed and the key that sealed it is not in ENCRYPTION_KEY_PREVIOUS); rotate it to issue a new one.',
  },
  'POST /v1/webhooks/{id}/test': { codes: [ErrorCode.Conflict], why: 'The webhook is disabled; set its status to active first.' },
  'POST /v1/webhooks/{id}/deliveries/{deliveryId}/retry': { codes: [ErrorCode.Conflict], why: 'The webhook is disabled, or the delivery is being attempted right now.' },
};

export const operationKey = (route: Pick<DiscoveredRoute, 'method' | 'path'>) => `${route.method.toUpperCase()} ${route.path}`;

/**
 * What a request of each method can be refused for by the body it carries,
 * whether or not the route needs one: a bodiless action (verify, cancel,
 * test) or a DELETE still has its body read, so `{bad` is 400 there too, and
 * a body that is not JSON is 415 on every method (assertJsonBody). Fastify
 * never reads a GET's body, so only its media type can fail.
 */
const BODY_STATUSES_BY_METHOD: Record<string, number[]> = {
  get: [415],
  post: [400, 413, 415],
  put: [400, 413, 415],
  patch: [400, 413, 415],
  delete: [400, 413, 415],
};

/**
 * The statuses an operation can fail with: the common ones, plus 404/409/400/413/415 where they apply. 422 on
 * every operation but those that take any query and no body (tracking): a query parameter or body field the
 * operation does not read is refused (refuseUnreadInput), as a DTO refuses an unknown field. 503 on every
 * operation, public ones too: a request reaching a gateway that is shutting down (closeKeepAliveOnShutdown).
 */
export function errorStatuses(route: DiscoveredRoute): number[] {
  const statuses = new Set<number>([500, 503]);
  if (route.permission !== null) [401, 403, 429].forEach((status) => statuses.add(status));
  if (route.pathParams.length) statuses.add(404);
  if (CONFLICTS[operationKey(route)]) statuses.add(409);
  (BODY_STATUSES_BY_METHOD[route.method] ?? []).forEach((status) => statuses.add(status));
  if (route.hasBody || !route.takesAnyQuery) statuses.add(422);
  return [...statuses].sort((a, b) => a - b);
}

export function errorResponses(route: DiscoveredRoute): Record<string, JsonSchema> {
  const responses: Record<string, JsonSchema> = {};
  for (const status of errorStatuses(route)) {
    const conflict = status === 409 ? CONFLICTS[operationKey(route)] : undefined;
    const headers = rateLimitHeadersOf(route.permission, status);
    responses[String(status)] = {
      description: conflict ? `${conflict.codes.map((code) => `\`${code}\``).join(' or ')}. ${conflict.why}` : `${codesFor(status)}. ${WHEN[status]}`,
      ...(headers ? { headers } : {}),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  return responses;
}
