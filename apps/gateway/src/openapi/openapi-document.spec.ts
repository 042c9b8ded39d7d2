import { IsOptional, IsString, registerDecorator } from 'class-validator';
import { IsEachHostname, IsFutureTimestamp, IsIpOrCidr, IsStringOrStringArray } from '@mailroom/contracts';
import { dtoSchemas } from './dto-schemas';
import { errorResponses, errorStatuses } from './error-responses';
import { successResponse } from './response-schemas';
import { withSendFieldLimits } from './send-field-limits';
import { DiscoveredRoute, toOpenApiPath } from './route-discovery';

function IsSomethingUnknown() {
  return (target: object, propertyName: string) =>
    registerDecorator({ name: 'isSomethingUnknown', target: target.constructor, propertyName, options: { message: 'must be something' }, validator: { validate: () => true } });
}

class OpenApiSpecProbeDto {
  @IsEachHostname()
  hosts: string[];

  @IsOptional()
  @IsIpOrCidr()
  ip?: string;

  @IsOptional()
  @IsFutureTimestamp()
  at?: string;

  @IsSomethingUnknown()
  either: string | number;

  @IsOptional()
  @IsString()
  note?: string;

  @IsStringOrStringArray(2, 5)
  few: string | string[];

  @IsOptional()
  @IsStringOrStringArray(0, 3)
  some?: string | string[];
}

const route = (overrides: Partial<DiscoveredRoute>): DiscoveredRoute => ({
  method: 'get',
  path: '/v1/things',
  controller: 'ThingsController',
  handler: 'list',
  permission: 'things:*',
  successStatus: 200,
  bodyType: null,
  hasBody: false,
  queryType: null,
  takesAnyQuery: false,
  pathParams: [],
  headerParams: [],
  operationId: 'Things_list',
  ...overrides,
});

describe('OpenAPI document pieces', () => {
  it('turns Nest paths into OpenAPI paths', () => {
    expect(toOpenApiPath('v1/domains', ':id/verify')).toBe('/v1/domains/{id}/verify');
    expect(toOpenApiPath('v1/emails', '/')).toBe('/v1/emails');
    expect(toOpenApiPath('/', 'health/live')).toBe('/health/live');
    expect(toOpenApiPath('v1/webhooks', ':id/deliveries/:deliveryId/retry')).toBe('/v1/webhooks/{id}/deliveries/{deliveryId}/retry');
  });

  it('gives Mailroom custom validators real schemas, and an unknown one its message instead of a broken $ref', () => {
    const schema = dtoSchemas().OpenApiSpecProbeDto as { properties: Record<string, Record<string, unknown>>; required: string[]; additionalProperties: boolean };
    expect(schema.properties.hosts).toMatchObject({ type: 'array', items: { type: 'string', maxLength: 253 } });
    expect(schema.properties.ip).toMatchObject({ type: 'string', anyOf: expect.any(Array) });
    expect(schema.properties.at).toMatchObject({ type: 'string', format: 'date-time' });
    expect(schema.properties.either).toEqual({ description: 'must be something' });
    // The bounds the DTO gave the rule, not only its message.
    expect(schema.properties.few).toEqual({
      oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, minItems: 2, maxItems: 5 }],
      description: 'must be a string or an array of 2 to 5 strings',
    });
    expect((schema.properties.some.oneOf as unknown[])[1]).toEqual({ type: 'array', items: { type: 'string' }, maxItems: 3 });
    expect(JSON.stringify(schema)).not.toContain('$ref');
    expect(schema.required.sort()).toEqual(['either', 'few', 'hosts']);
    expect(schema.additionalProperties).toBe(false);
  });

  it("states an API key name's not-blank rule as the API checks it: zero-width characters alone are blank", () => {
    const name = (dtoSchemas().ApiKeyCreateDto as { properties: Record<string, { pattern: string }> }).properties.name;
    const documented = new RegExp(name.pattern, 'u');
    expect(['CI deploys', '\u200bCI', ''].filter((value) => !documented.test(value))).toEqual([]);
    expect([' \t', '\u200b\u200d', '\u3164'].filter((value) => documented.test(value))).toEqual([]);
  });

  it('refuses send-field limits for a property the DTO schemas do not have, so a renamed field cannot shed them', () => {
    expect(() => withSendFieldLimits({ EmailSendDto: { type: 'object', properties: {} } })).toThrow(/EmailSendDto\.headers/);
  });

  it('maps CRUD routes to their response shapes by prefix', () => {
    expect(successResponse('get', '/v1/domains').schema).toMatchObject({ properties: { data: { items: { $ref: '#/components/schemas/DomainListItem' } } } });
    expect(successResponse('post', '/v1/api-keys').schema).toEqual({ $ref: '#/components/schemas/ApiKeyCreated' });
    expect(successResponse('get', '/v1/webhooks/{id}').schema).toEqual({ $ref: '#/components/schemas/Webhook' });
    expect(successResponse('delete', '/v1/domains/{id}').schema).toEqual({
      allOf: [{ $ref: '#/components/schemas/Deleted' }, { type: 'object', properties: { object: { const: 'domain' } } }],
    });
    expect(successResponse('get', '/v1/unknown/thing').schema).toEqual({ type: 'object' });
  });

  it('names in each 409 the one code that operation answers it with', () => {
    const conflictOf = (overrides: Partial<DiscoveredRoute>) => errorResponses(route(overrides))['409'].description as string;
    expect(conflictOf({ method: 'delete', path: '/v1/domains/{id}', pathParams: ['id'] })).toMatch(/^`in_use`\. /);
    expect(conflictOf({ method: 'post', path: '/v1/domains', hasBody: true })).toMatch(/^`conflict`\. /);
    expect(conflictOf({ method: 'post', path: '/v1/emails/{id}/cancel', pathParams: ['id'] })).toMatch(/^`conflict`\. /);
  });

  it('lists the error statuses a route can answer', () => {
    // Any route can be sent an unknown query parameter (422) and a body that is not JSON (415).
    expect(errorStatuses(route({}))).toEqual([401, 403, 415, 422, 429, 500, 503]);
    // A public route too answers 503 while the gateway shuts down.
    expect(errorStatuses(route({ permission: null, path: '/health' }))).toEqual([415, 422, 500, 503]);
    // The tracking routes take any query parameter, and read no body.
    expect(errorStatuses(route({ permission: null, path: '/t/o/{token}', pathParams: ['token'], takesAnyQuery: true }))).toEqual([404, 415, 500, 503]);
    expect(errorStatuses(route({ method: 'post', path: '/v1/domains', hasBody: true }))).toEqual([400, 401, 403, 409, 413, 415, 422, 429, 500, 503]);
    expect(errorStatuses(route({ method: 'post', path: '/v1/things/{id}/verify', pathParams: ['id'] }))).toEqual([400, 401, 403, 404, 413, 415, 422, 429, 500, 503]);
    expect(errorStatuses(route({ method: 'delete', path: '/v1/things/{id}', pathParams: ['id'] }))).toEqual([400, 401, 403, 404, 413, 415, 422, 429, 500, 503]);
  });
});
