import { DEFAULT_LIST_LIMIT, IDEMPOTENCY_KEY_PATTERN, IDEMPOTENCY_LIMITS } from '@mailroom/contracts';
import { BODY_OVERRIDES } from './body-overrides';
import type { JsonSchema } from './custom-validator-converters';
import { withListCursorPattern } from './cursor-patterns';
import { reachableSchemas, schemaRef } from './dto-schemas';
import { ERROR_SCHEMA, errorResponses, operationKey } from './error-responses';
import { rateLimitHeadersOf } from './rate-limit-headers';
import { RESPONSE_COMPONENTS, successResponse } from './response-schemas';
import { withNullableOptionals } from './nullable-optionals';
import type { DiscoveredRoute } from './route-discovery';
import { EVENT_COMPONENT, WEBHOOKS } from './webhook-deliveries';

export type OpenApiDocument = JsonSchema & { openapi: '3.1.0'; paths: Record<string, Record<string, JsonSchema>> };

const HEADERS: Record<string, JsonSchema> = {
  'RateLimit-Limit': { description: 'The burst size of the key (RATE_LIMIT_BURST).', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests the key may still make right now.', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the bucket is full again.', schema: { type: 'integer' } },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
};

/** Request headers handlers read with @Headers(name), by lower-case name. */
const HEADER_PARAMETERS: Record<string, JsonSchema> = {
  'idempotency-key': {
    name: 'Idempotency-Key',
    description:
      `Makes the request safe to retry: the same key and body within ${IDEMPOTENCY_LIMITS.windowHours} hours answer the first response again; the same key with another body is 409 conflict.`,
    schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_LIMITS.keyMaxLength, pattern: IDEMPOTENCY_KEY_PATTERN.source },
  },
};

const DESCRIPTION = [
  'The Mailroom HTTP JSON API. Every request carries `Authorization: Bearer <API key>` unless the operation says it is public.',
  'Each operation names the permission its key needs (also in `x-permission`). Errors always have the body `{ "error": { "code", "message" } }`.',
  'A client address that made too many failed authentications (429), the key (401), the client address and the permission (403) and the rate limit (429) are checked before the body is read, so a request that fails one of them gets that answer whatever its body; 415, 413 and 400 come only after.',
  'Lists are newest first with `limit`, `starting_after` and `ending_before` cursors, and answer `{ object: "list", data, hasMore, totalCount }`.',
  'A path served under other methods only answers 405 `method_not_allowed` with an `Allow` header; a URL that alone reaches the 16 KB header limit answers 414 `uri_too_long`, and headers over it 431 `headers_too_large`. An HTTP/1.1 request with no `Host` header, or several, answers 400 `invalid_json`, and an `Expect` other than `100-continue` 417 `expectation_failed`, each before the key is read. Every operation of /v1 refuses a query parameter it does not read (422 naming it), and every operation refuses a body that is not JSON (415); one that takes no body refuses a JSON body with fields (422) and accepts none, or `{}`.',
].join('\n\n');

/** `/v1/domains/{id}` → `domains`; `/health` → `health`. */
function tagOf(path: string): string {
  const segments = path.split('/').filter(Boolean);
  return (segments[0] === 'v1' ? segments[1] : segments[0]) ?? 'root';
}

/**
 * Defaults of query parameters, which class-validator has no word for: every
 * list's `limit` is DEFAULT_LIST_LIMIT when left out (toListParams).
 */
const QUERY_DEFAULTS: Record<string, unknown> = { limit: DEFAULT_LIST_LIMIT };

function parametersOf(route: DiscoveredRoute, dtoSchemas: Record<string, JsonSchema>): JsonSchema[] {
  const parameters: JsonSchema[] = route.pathParams.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
  const query = route.queryType ? dtoSchemas[route.queryType.name] : undefined;
  if (query) {
    const required = new Set((query.required as string[] | undefined) ?? []);
    for (const [name, schema] of Object.entries((query.properties ?? {}) as Record<string, JsonSchema>)) {
      const { description, ...rest } = schema;
      const withDefault = name in QUERY_DEFAULTS ? Object.assign(rest, { default: QUERY_DEFAULTS[name] }) : rest;
      const narrowed = withListCursorPattern(operationKey(route), name, withDefault);
      parameters.push({ name, in: 'query', required: required.has(name), ...(description ? { description } : {}), schema: narrowed });
    }
  }
  for (const name of route.headerParams) {
    parameters.push({ name, schema: { type: 'string' }, ...HEADER_PARAMETERS[name.toLowerCase()], in: 'header', required: false });
  }
  return parameters;
}

/** The body schema and the DTO names it pulls into components. */
function requestBodyOf(route: DiscoveredRoute, dtoSchemas: Record<string, JsonSchema>): { body?: JsonSchema; roots: string[] } {
  const override = BODY_OVERRIDES[operationKey(route)];
  let schema: JsonSchema | undefined;
  let roots: string[] = [];
  if (override) {
    schema = override.schema;
    roots = override.dtos.map((dto) => dto.name);
  } else if (route.bodyType && dtoSchemas[route.bodyType.name]) {
    schema = schemaRef(route.bodyType.name);
    roots = [route.bodyType.name];
  } else if (route.hasBody) {
    schema = { type: 'object' };
  }
  if (!schema) return { roots };
  return { body: { required: true, content: { 'application/json': { schema } } }, roots };
}

function describe(route: DiscoveredRoute): string {
  if (route.permission === null) return 'Public: no API key needed.';
  const permission = route.permission === '*' ? 'the `*` (full access)' : `the \`${route.permission}\``;
  return `Requires ${permission} permission (a key holding \`*\` may call every operation).`;
}

function successOf(route: DiscoveredRoute): Record<string, JsonSchema> {
  const shape = successResponse(route.method, route.path);
  const contentType = shape.contentType ?? 'application/json';
  const status = operationKey(route) === 'GET /t/c/{token}' ? 302 : route.successStatus;
  const headers = rateLimitHeadersOf(route.permission, status);
  const content = shape.schema || shape.contentType ? { content: { [contentType]: { schema: shape.schema ?? { type: 'string', contentMediaType: contentType } } } } : {};
  return {
    [String(status)]: { description: shape.description ?? 'Success.', ...(headers ? { headers } : {}), ...content },
    ...(shape.sameBodyAlso ? { [String(shape.sameBodyAlso.status)]: { description: shape.sameBodyAlso.description, ...content } } : {}),
  };
}

/**
 * The success responses and the error ones, by status. A status in both (GET /health's 503: its own body
 * while a service is down, the Error body while the gateway shuts down) takes either body.
 */
function mergedResponses(success: Record<string, JsonSchema>, errors: Record<string, JsonSchema>): Record<string, JsonSchema> {
  const responses = Object.assign({}, success);
  for (const [status, error] of Object.entries(errors)) {
    const own = responses[status];
    responses[status] = own ? eitherResponse(own, error) : error;
  }
  return responses;
}

function eitherResponse(own: JsonSchema, error: JsonSchema): JsonSchema {
  const schemaOf = (response: JsonSchema) => (response.content as Record<string, JsonSchema>)['application/json'].schema;
  return {
    description: `${own.description as string} Or ${error.description as string}`,
    content: { 'application/json': { schema: { anyOf: [schemaOf(own), schemaOf(error)] } } },
  };
}

/**
 * Builds the OpenAPI 3.1 document from the routes Nest registered and the DTO
 * schemas class-validator knows. Pure: the same routes give the same document.
 */
export function buildOpenApiDocument(routes: DiscoveredRoute[], dtoSchemas: Record<string, JsonSchema>): OpenApiDocument {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const roots = new Set<string>();
  for (const route of routes) {
    const parameters = parametersOf(route, dtoSchemas);
    const { body, roots: bodyRoots } = requestBodyOf(route, dtoSchemas);
    bodyRoots.forEach((name) => roots.add(name));
    paths[route.path] ??= {};
    paths[route.path][route.method] = {
      operationId: route.operationId,
      tags: [tagOf(route.path)],
      summary: `${route.method.toUpperCase()} ${route.path}`,
      description: describe(route),
      'x-permission': route.permission ?? 'public',
      ...(route.permission === null ? { security: [] } : {}),
      ...(parameters.length ? { parameters } : {}),
      ...(body ? { requestBody: body } : {}),
      responses: mergedResponses(successOf(route), errorResponses(route)),
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Mailroom API', version: 'v1', description: DESCRIPTION, license: { name: 'MIT', identifier: 'MIT' } },
    tags: [...new Set(routes.map((route) => tagOf(route.path)))].sort().map((name) => ({ name })),
    security: [{ bearerAuth: [] }],
    paths,
    webhooks: WEBHOOKS,
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: `mr_…` (live) or `mr_test_…` (test).' } },
      headers: HEADERS,
      schemas: { Error: ERROR_SCHEMA, Event: EVENT_COMPONENT, ...RESPONSE_COMPONENTS, ...withNullableOptionals(reachableSchemas(dtoSchemas, roots)) },
    },
  };
}
