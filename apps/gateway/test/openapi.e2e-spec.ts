import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync } from 'class-validator';
import * as contracts from '@mailroom/contracts';
import { PERMISSIONS } from '@mailroom/contracts';
import { ErrorCode } from '@mailroom/errors';
import { ApiClient, startStack, Stack } from '@mailroom/testing';
import { bootstrapGateway } from '../src/bootstrap';
import { BODY_OVERRIDES } from '../src/openapi/body-overrides';
import { CURSOR_ID_PREFIXES } from '../src/openapi/cursor-patterns';
import { CONFLICTS } from '../src/openapi/error-responses';
import { registeredRoutes } from '../src/openapi/registered-routes';
import { RESPONSES_BY_OPERATION } from '../src/openapi/response-schemas';
import { documentSchemaCompiler, Json, Operation, operationsOf, SAMPLE_ID } from './support/openapi-schemas';
import { readmePermissionOf, readmePermissionRoutes } from './support/readme-permissions';

/** The interface's Endpoints table: all of them require authentication. */
const INTERFACE_ENDPOINTS = [
  'POST /v1/api-keys',
  'GET /v1/emails',
  'GET /v1/emails/{id}',
  'POST /v1/domains',
  'GET /v1/domains',
  'GET /v1/domains/{id}',
  'POST /v1/domains/{id}/verify',
  'DELETE /v1/domains/{id}',
  'GET /v1/webhooks',
  'GET /v1/webhooks/{id}',
];

/** POST routes that act on a resource and take no body. */
const BODILESS = new Set(['verify', 'cancel', 'rotate', 'retry', 'test']);

/** The DTO classes exported by @mailroom/contracts, by class name. */
const dtoClasses = new Map<string, new () => object>(
  Object.values(contracts)
    .filter((value): value is new () => object => typeof value === 'function' && /Dto$/.test(value.name))
    .map((cls) => [cls.name, cls]),
);

/** Read from class-validator directly, not through the generator: every property that has a rule. */
function validatedProperties(cls: new () => object): string[] {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
  return [...new Set(metadata.map((meta) => meta.propertyName))].sort();
}

/** Required = fails validation when absent: an empty object names exactly the fields that may not be left out. */
function requiredProperties(cls: new () => object): string[] {
  const errors = validateSync(plainToInstance(cls, {}), { whitelist: true, forbidNonWhitelisted: true });
  return errors.map((error) => error.property).sort();
}

/** The fields that validation lets be null: `{ field: null }` gives no error on the field itself. */
function nullableProperties(cls: new () => object): string[] {
  return validatedProperties(cls).filter((property) => {
    const errors = validateSync(plainToInstance(cls, { [property]: null }), { whitelist: true, forbidNonWhitelisted: true });
    return !errors.some((error) => error.property === property);
  });
}

/** Whether a JSON Schema (with $refs into the document's components) accepts null. */
function schemaAcceptsNull(schema: Json, doc: Json): boolean {
  if (typeof schema.$ref === 'string') return schemaAcceptsNull(doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')], doc);
  if (Array.isArray(schema.anyOf) && !schema.anyOf.some((option: Json) => schemaAcceptsNull(option, doc))) return false;
  if (Array.isArray(schema.oneOf) && !schema.oneOf.some((option: Json) => schemaAcceptsNull(option, doc))) return false;
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) return false;
  return schema.type === undefined || [schema.type].flat().includes('null');
}

function refsIn(schema: unknown): string[] {
  if (Array.isArray(schema)) return schema.flatMap(refsIn);
  if (!schema || typeof schema !== 'object') return [];
  return Object.entries(schema).flatMap(([key, value]) =>
    key === '$ref' && typeof value === 'string' ? [value.replace('#/components/schemas/', '')] : refsIn(value),
  );
}

describe('OpenAPI reference (GET /openapi.json, /docs)', () => {
  let stack: Stack;
  let gateway: NestFastifyApplication;
  let api: ApiClient;
  let doc: Json;
  let operations: Operation[];

  beforeAll(async () => {
    // Only the gateway matters; it is booted here so the test can read what Fastify registered.
    stack = await startStack({ apps: ['keys'] });
    gateway = await bootstrapGateway({ ...stack.configFor('gateway'), PORT: 0 });
    const { port } = gateway.getHttpServer().address() as AddressInfo;
    api = new ApiClient(`http://127.0.0.1:${port}`, stack.rootKey);
    const response = await api.get('/openapi.json', { key: null });
    expect(response.status).toBe(200);
    doc = response.body;
    operations = operationsOf(doc);
  });
  afterAll(async () => {
    await gateway?.close();
    await stack?.stop();
  });

  it('is a valid OpenAPI 3.1 document, checked by an independent validator', async () => {
    expect(doc).toMatchObject({ openapi: '3.1.0', info: { title: expect.any(String), version: expect.any(String) } });
    expect(Object.keys(doc.paths).length).toBeGreaterThan(10);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    const dir = await mkdtemp(join(tmpdir(), 'openapi-'));
    try {
      const file = join(dir, 'openapi.json');
      await writeFile(file, JSON.stringify(doc));
      // The validator is ESM-only, so it runs as its own process (its CLI exits 1 when invalid).
      const cli = require.resolve('@seriousme/openapi-schema-validator/bin/validate-api-cli.js');
      const { stdout } = await promisify(execFile)(process.execPath, [cli, file]).catch((error) => error);
      expect(JSON.parse(stdout)).toMatchObject({ valid: true });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('documents every /v1 route Fastify registered, and no route that does not exist', () => {
    const registered = registeredRoutes(gateway)
      .filter((route) => !['HEAD', 'OPTIONS'].includes(route.method))
      .map((route) => `${route.method} ${route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/(.)\/$/, '$1')}`);
    const apiRoutes = [...new Set(registered.filter((key) => key.split(' ')[1].startsWith('/v1/')))].sort();
    expect(apiRoutes.length).toBeGreaterThan(20);
    const documented = operations.map((operation) => operation.key);
    expect(apiRoutes.filter((key) => !documented.includes(key))).toEqual([]);
    expect(documented.filter((key) => !registered.includes(key))).toEqual([]);
    for (const { key, op } of operations) {
      expect({ key, permission: typeof op['x-permission'] }).toEqual({ key, permission: 'string' });
      expect(op.description).toContain(op['x-permission'] === 'public' ? 'Public' : `\`${op['x-permission']}\``);
    }
  });

  describe('the permission matrix: every secured operation, the permission it documents, and the guard', () => {
    /** The request each operation is called with: any id, and `{}` where it reads a body. */
    const call = ({ method, path, op }: Operation, key: string | null, as = method) =>
      api.request(as.toUpperCase(), path.replace(/\{[^}]+\}/g, `x_${SAMPLE_ID}`), { key, body: op.requestBody ? {} : undefined });
    /** The methods Fastify serves an operation under: HEAD wherever GET is, answered by the GET route. */
    const methodsOf = ({ method }: Operation) => (method === 'get' ? ['get', 'head'] : [method]);
    const securedOperations = () => operations.filter(({ path, op }) => path.startsWith('/v1/') && op['x-permission'] !== 'public');
    /** Keys are issued once per permission set; the rate limit is off in the stack's gateway config. */
    const keys = new Map<string, Promise<string>>();
    const keyHolding = (permissions: string[]) => {
      const id = permissions.join(',');
      if (!keys.has(id)) keys.set(id, stack.issueKey({ permissions }).then((issued) => issued.key));
      return keys.get(id)!;
    };

    it('documents a permission the API has for every secured /v1 operation, with no security override', () => {
      expect(securedOperations().length).toBeGreaterThan(20);
      for (const { key: operation, op } of securedOperations()) {
        expect({ operation, security: op.security, known: PERMISSIONS.includes(op['x-permission']) }).toEqual({ operation, security: undefined, known: true });
      }
    });

    // The interface: every endpoint requires authentication; a missing header is answered unauthorized (401).
    it('answers a request without an Authorization header 401 unauthorized on every secured operation, the interface\'s endpoints among them', async () => {
      expect(securedOperations().map(({ key }) => key)).toEqual(expect.arrayContaining(INTERFACE_ENDPOINTS));
      for (const operation of securedOperations()) {
        for (const method of methodsOf(operation)) {
          const response = await call(operation, null, method);
          expect({ operation: operation.key, method, status: response.status, code: response.body?.error?.code }).toEqual({
            operation: operation.key,
            method,
            status: 401,
            // A HEAD answer has no body to carry the code.
            code: method === 'head' ? undefined : 'unauthorized',
          });
        }
      }
    });

    it('refuses a key with no permissions, and one with every permission but the one required (and not *), naming the permission', async () => {
      for (const operation of securedOperations()) {
        const required = operation.op['x-permission'];
        const allOthers = PERMISSIONS.filter((permission) => permission !== required && permission !== '*');
        for (const [held, method] of [[], allOthers].flatMap((held) => methodsOf(operation).map((method) => [held, method] as const))) {
          const response = await call(operation, await keyHolding(held), method);
          expect({ operation: operation.key, method, held, status: response.status, error: response.body?.error }).toEqual({
            operation: operation.key,
            method,
            held,
            status: 403,
            // A HEAD answer has no body to name it in.
            error: method === 'head' ? undefined : { code: 'forbidden', message: expect.stringContaining(`'${required}'`) },
          });
        }
      }
    });

    it('admits a key holding that one permission alone, and a * key', async () => {
      for (const operation of securedOperations()) {
        for (const [held, method] of [[operation.op['x-permission']], ['*']].flatMap((held) => methodsOf(operation).map((method) => [held, method] as const))) {
          const response = await call(operation, await keyHolding(held), method);
          // Past the guard the call may still fail on its made-up id or empty body (404, 422, or 503 from a service
          // this suite does not run); what it must not be is a refusal of the key.
          expect({ operation: operation.key, method, held, refused: [401, 403].includes(response.status) }).toEqual({
            operation: operation.key,
            method,
            held,
            refused: false,
          });
        }
      }
    });

    it('is the README\'s Permissions table: every operation has a row there, with the permission the document names', () => {
      const routes = readmePermissionRoutes();
      for (const { key: operation, method, path, op } of operations) {
        const documented = op['x-permission'] === 'public' ? null : op['x-permission'];
        expect({ operation, readme: readmePermissionOf(routes, method.toUpperCase(), path) }).toEqual({ operation, readme: documented });
      }
    });
  });

  it('marks public routes with security: [] and they answer without a key', async () => {
    const publicOps = operations.filter(({ op }) => op['x-permission'] === 'public');
    expect(publicOps.map(({ key }) => key)).toEqual(expect.arrayContaining(['GET /openapi.json', 'GET /docs', 'GET /health/live']));
    for (const { key, op } of publicOps) expect({ key, security: op.security }).toEqual({ key, security: [] });
    expect((await api.get('/health/live', { key: null })).status).toBe(200);
    // GET /health answers 503 with its own body when a service is down, and with the error shape while the gateway shuts down.
    const health = operations.find(({ key }) => key === 'GET /health')!.op;
    expect(health.responses['503'].content['application/json'].schema).toEqual({
      anyOf: [health.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/Error' }],
    });
    // Every public route can answer that 503 too.
    for (const { key, op } of publicOps) expect({ key, schema: op.responses['503']?.content['application/json'].schema }).toEqual({ key, schema: expect.anything() });
  });

  it('describes each request body exactly as its DTO validates it: same properties, same required ones, same ones that take null', () => {
    const withBody = operations.filter(({ method, path }) => ['post', 'put', 'patch'].includes(method) && path.startsWith('/v1/'));
    const missing = withBody.filter(({ path, op }) => !op.requestBody && !BODILESS.has(path.split('/').pop()!));
    expect(missing.map(({ key }) => key)).toEqual([]);
    // A body without a DTO reference (e.g. `@Body() body: unknown` and no BODY_OVERRIDES entry) documents nothing.
    const untyped = withBody.filter(({ op }) => op.requestBody && !refsIn(op.requestBody.content['application/json'].schema).length);
    expect(untyped.map(({ key }) => key)).toEqual([]);
    const checked = new Set<string>();
    const pending = withBody.flatMap(({ op }) => refsIn(op.requestBody?.content?.['application/json']?.schema));
    expect(pending).toEqual(expect.arrayContaining(['ApiKeyCreateDto', 'DomainCreateDto', 'EmailSendDto', 'WebhookCreateDto']));
    while (pending.length) {
      const name = pending.pop()!;
      if (checked.has(name)) continue;
      checked.add(name);
      const cls = dtoClasses.get(name);
      const schema = doc.components.schemas[name];
      expect({ name, exported: Boolean(cls), documented: Boolean(schema) }).toEqual({ name, exported: true, documented: true });
      expect({ name, properties: Object.keys(schema.properties).sort() }).toEqual({ name, properties: validatedProperties(cls!) });
      expect({ name, required: [...(schema.required ?? [])].sort() }).toEqual({ name, required: requiredProperties(cls!) });
      // null is "not given" for an optional field of a creation and "clear" for some PATCH fields: the schema must say which take it.
      const documentedNullable = Object.keys(schema.properties).filter((property) => schemaAcceptsNull(schema.properties[property], doc));
      expect({ name, nullable: documentedNullable.sort() }).toEqual({ name, nullable: nullableProperties(cls!) });
      pending.push(...refsIn(schema));
    }
    // Nested DTOs are reached through the references, not only the top-level bodies.
    expect([...checked]).toEqual(expect.arrayContaining(['EmailAttachmentDto', 'EmailTrackingDto', 'EmailBatchDto']));
  });

  it('states the send limits as JSON Schema keywords, for single and batch sends alike, with the numbers the API checks', async () => {
    const { EMAIL_LIMITS } = contracts;
    const compile = documentSchemaCompiler(doc);
    const bodySchemaOf = (key: string) => operations.find((operation) => operation.key === key)!.op.requestBody.content['application/json'].schema;
    const single = compile(bodySchemaOf('POST /v1/emails'));
    const batch = compile(bodySchemaOf('POST /v1/emails/batch'));
    const accepts = (body: Json) => [single(body), batch({ emails: [body] }), batch([body])];
    const emailWith = (field: string, value: unknown): Json => Object.assign({}, email, { [field]: value });

    const email = { from: 'a@example.com', to: 'b@example.com', subject: 'Hi', text: 'x' };
    const addresses = (count: number) => Array.from({ length: count }, (_, index) => `r${index}@example.com`);
    const entries = (count: number, value = 'v') => Object.fromEntries(Array.from({ length: count }, (_, index) => [`X-Field-${index}`, value]));
    const atLimit: Json = {
      to: addresses(EMAIL_LIMITS.toMax),
      cc: addresses(EMAIL_LIMITS.ccMax),
      bcc: [],
      replyTo: addresses(EMAIL_LIMITS.replyToMax),
      headers: entries(EMAIL_LIMITS.headersMax, 'x'.repeat(EMAIL_LIMITS.headerValueMaxLength)),
      metadata: Object.assign(entries(EMAIL_LIMITS.metadataMaxKeys - 1), { ['k'.repeat(EMAIL_LIMITS.metadataKeyMaxLength)]: 'v'.repeat(EMAIL_LIMITS.metadataValueMaxLength) }),
      scheduledAt: new Date(Date.now() + 86_400_000).toISOString(),
    };
    const overLimit: Json = {
      to: [addresses(EMAIL_LIMITS.toMax + 1), []],
      cc: [addresses(EMAIL_LIMITS.ccMax + 1)],
      bcc: [addresses(EMAIL_LIMITS.bccMax + 1)],
      replyTo: [addresses(EMAIL_LIMITS.replyToMax + 1)],
      headers: [
        entries(EMAIL_LIMITS.headersMax + 1),
        { ['X-' + 'n'.repeat(EMAIL_LIMITS.headerNameMaxLength - 1)]: 'v' },
        { 'X-Long': 'x'.repeat(EMAIL_LIMITS.headerValueMaxLength + 1) },
        { 'X-Blank': '  ' },
        { 'X-Folded': 'a\r\nBcc: c@example.com' },
      ],
      metadata: [entries(EMAIL_LIMITS.metadataMaxKeys + 1), { '': 'v' }, { ['k'.repeat(EMAIL_LIMITS.metadataKeyMaxLength + 1)]: 'v' }, { k: 'v'.repeat(EMAIL_LIMITS.metadataValueMaxLength + 1) }],
      tags: [Array(EMAIL_LIMITS.tagsMax + 1).fill('t'), ['t'.repeat(EMAIL_LIMITS.tagMaxLength + 1)]],
      attachments: [Array(EMAIL_LIMITS.attachmentsMax + 1).fill({ filename: 'a.txt', content: 'eA==' })],
      scheduledAt: ['next tuesday', 42],
    };

    expect(accepts(email)).toEqual([true, true, true]);
    for (const [field, value] of Object.entries(atLimit)) expect({ field, accepted: accepts(emailWith(field, value)) }).toEqual({ field, accepted: [true, true, true] });
    for (const [field, values] of Object.entries(overLimit)) {
      for (const value of values as unknown[]) expect({ field, value, accepted: accepts(emailWith(field, value)) }).toEqual({ field, value, accepted: [false, false, false] });
    }
    const sendSchema = doc.components.schemas.EmailSendDto;
    expect(sendSchema.properties.scheduledAt.description).toContain(`${EMAIL_LIMITS.scheduleMaxDays} days`);
    expect(doc.components.schemas.EmailRescheduleDto.properties.scheduledAt).toMatchObject({ type: 'string', format: 'date-time' });
    expect(doc.components.schemas.EmailAttachmentDto.properties.content).toMatchObject({ type: 'string', contentEncoding: 'base64' });

    // The gateway checks the recipient counts itself: it refuses exactly what the schema refuses.
    for (const field of ['to', 'cc', 'bcc', 'replyTo']) {
      for (const value of overLimit[field] as unknown[]) {
        const response = await api.post('/v1/emails', emailWith(field, value));
        expect({ field, status: response.status, message: response.body.error.message }).toEqual({ field, status: 422, message: expect.stringContaining(field) });
      }
      // Within the limit the body passes the gateway, which then finds no emails service in this stack.
      const response = await api.post('/v1/emails', emailWith(field, atLimit[field]));
      expect({ field, status: response.status }).toEqual({ field, status: 503 });
    }
  });

  it("states the event kinds a webhook's events take, refusing exactly the lists the dispatcher refuses", () => {
    const { WEBHOOK_EVENT_KINDS, webhookEventsProblem } = contracts;
    const compile = documentSchemaCompiler(doc);
    const bodySchemaOf = (key: string) => operations.find((operation) => operation.key === key)!.op.requestBody.content['application/json'].schema;
    const create = compile(bodySchemaOf('POST /v1/webhooks'));
    const update = compile(bodySchemaOf('PATCH /v1/webhooks/{id}'));
    const lists = [['*'], [...WEBHOOK_EVENT_KINDS], ['email.delivered', '*'], [], ['bogus'], ['webhook.test'], ['email.delivered', 'Email.Bounced'], ['email.*']];
    for (const events of lists) {
      const apiTakes = webhookEventsProblem(events) === null;
      expect({ events, create: create({ url: 'https://hooks.example.com/in', events }), update: update({ events }) }).toEqual({ events, create: apiTakes, update: apiTakes });
    }
    // Answers list them too: a client generated from the document gets the same type in and out.
    const answered = doc.components.schemas.WebhookListItem.properties.events;
    expect(answered.items.enum).toEqual(['*', ...WEBHOOK_EVENT_KINDS]);
  });

  it('gives custom validators meaningful schemas', () => {
    const { ApiKeyCreateDto: create } = doc.components.schemas;
    expect(create.properties.domainRestrictions.items).toMatchObject({ type: 'string', maxLength: 253, description: expect.stringContaining('any case and IDN') });
    expect(create.properties.ipRestrictions.items.anyOf).toEqual(expect.arrayContaining([{ format: 'ipv4' }, { format: 'ipv6' }]));
    expect(create.properties.expiresAt).toMatchObject({ type: ['string', 'null'], format: 'date-time' });
    expect(create.properties.permissions.items.enum).toEqual(expect.arrayContaining(['*', 'domains:*']));
    const list = operations.find(({ key }) => key === 'GET /v1/emails')!.op;
    expect(list.parameters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'limit', in: 'query', required: false, schema: expect.objectContaining({ maximum: 100 }) }),
        expect.objectContaining({ name: 'from_date', in: 'query', schema: expect.objectContaining({ format: 'date-time' }) }),
      ]),
    );
  });

  it("describes a domain's dnsRecords as the interface does: without `verified` in the create answer, with it on each record retrieved or updated", () => {
    const compile = documentSchemaCompiler(doc, { strict: true });
    const successSchemaOf = (key: string): Json => {
      const { op } = operations.find((operation) => operation.key === key)!;
      const [, success] = Object.entries(op.responses as Json).find(([status]) => status.startsWith('2'))!;
      return success.content['application/json'].schema;
    };
    const issued = { type: 'TXT', host: '@', value: 'v=spf1 include:spf.example.net ~all', purpose: 'spf' };
    const flagged = { verified: false, ...issued };
    const domain = (record: Json) => ({
      id: `dom_${SAMPLE_ID}`,
      object: 'domain',
      name: 'example.com',
      status: 'pending',
      region: 'us',
      spfStatus: 'pending',
      dkimStatus: 'pending',
      dmarcStatus: 'pending',
      createdAt: '2026-11-27T12:00:00.000Z',
      dnsRecords: [record],
      dkimRotation: null,
      openTracking: true,
      clickTracking: true,
      trackingDomain: 'track.example.net',
      trackingDomainStatus: 'verified',
    });
    const accepts = (key: string, record: Json) => compile(successSchemaOf(key))(domain(record));
    expect({
      created: [accepts('POST /v1/domains', issued), accepts('POST /v1/domains', flagged)],
      retrieved: [accepts('GET /v1/domains/{id}', issued), accepts('GET /v1/domains/{id}', flagged)],
      updated: [accepts('PATCH /v1/domains/{id}', issued), accepts('PATCH /v1/domains/{id}', flagged)],
    }).toEqual({ created: [true, false], retrieved: [false, true], updated: [false, true] });
  });

  it("documents the page size every list answers when limit is left out", async () => {
    const lists = operations.filter(({ op }) => op.parameters?.some((parameter: Json) => parameter.name === 'limit'));
    expect(lists.length).toBeGreaterThanOrEqual(6);
    const defaults = lists.map(({ key, op }) => ({ key, default: op.parameters.find((parameter: Json) => parameter.name === 'limit').schema.default }));
    const documented = defaults[0].default;
    expect(defaults).toEqual(lists.map(({ key }) => ({ key, default: documented })));
    // One more key than the default page holds (the stack's root key is one), so the page size shows.
    const { body } = await api.get('/v1/api-keys?limit=100');
    for (let count = body.data.length; count <= documented; count += 1) expect((await api.post('/v1/api-keys', { name: `page ${count}` })).status).toBe(201);
    const page = await api.get('/v1/api-keys');
    expect({ size: page.body.data.length, hasMore: page.body.hasMore }).toEqual({ size: documented, hasMore: true });
  });

  it('lists the error responses each route can answer, all with the Error schema and the ErrorCode enum', () => {
    expect(doc.components.schemas.Error.properties.error.properties.code.enum.sort()).toEqual(Object.values(ErrorCode).sort());
    for (const { key, method, path, op } of operations.filter(({ path }) => path.startsWith('/v1/'))) {
      const expected = ['401', '403', '415', '422', '429', '500', '503'];
      if (path.includes('{')) expected.push('404');
      if (method !== 'get') expected.push('400', '413');
      if (CONFLICTS[key]) expected.push('409');
      expect({ key, statuses: Object.keys(op.responses).filter((status) => status >= '400').sort() }).toEqual({ key, statuses: expected.sort() });
      for (const status of expected) expect(op.responses[status].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
      const success = Object.keys(op.responses).filter((status) => status < '400');
      expect({ key, success: success.length }).toEqual({ key, success: 1 });
    }
    expect(operations.find(({ key }) => key === 'POST /v1/emails')!.op.responses['202']).toBeDefined();
    expect(operations.find(({ key }) => key === 'POST /v1/domains')!.op.responses['201'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/DomainCreated',
    });
  });

  it('documents the Idempotency-Key header and both of its 409 codes on every keyed creation, the sends and POST /v1/webhooks alike, and on no other operation', () => {
    const keyed = operations.filter(({ op }) => (op.parameters ?? []).some((parameter: Json) => parameter.in === 'header' && parameter.name === 'Idempotency-Key'));
    expect(keyed.map(({ key }) => key).sort()).toEqual(['POST /v1/emails', 'POST /v1/emails/batch', 'POST /v1/webhooks']);
    const [sendHeader] = keyed[0].op.parameters.filter((parameter: Json) => parameter.name === 'Idempotency-Key');
    for (const { key, op } of keyed) {
      expect({ key, header: op.parameters.find((parameter: Json) => parameter.name === 'Idempotency-Key') }).toEqual({ key, header: sendHeader });
      expect({ key, description: op.responses['409'].description }).toEqual({ key, description: expect.stringMatching(/^`conflict` or `idempotency_key_in_use`\. /) });
    }
    expect(sendHeader).toMatchObject({ in: 'header', required: false, schema: { type: 'string', minLength: 1, maxLength: 256 } });
  });

  it('documents the status each route answers a body it cannot read with, bodiless actions and deletes included', async () => {
    const undocumented: string[] = [];
    for (const { key, method, path, op } of operations.filter(({ method, path }) => path.startsWith('/v1/') && method !== 'get')) {
      const url = path.replace(/\{[^}]+\}/g, `x_${SAMPLE_ID}`);
      for (const [contentType, rawBody] of [
        ['application/json', '{bad'],
        ['text/plain', 'x'],
      ]) {
        const response = await api.request(method.toUpperCase(), url, { rawBody, headers: { 'content-type': contentType } });
        if (!op.responses[String(response.status)]) undocumented.push(`${key} with a ${contentType} body → ${response.status}`);
      }
    }
    expect(undocumented).toEqual([]);
  });

  it('documents 422 exactly where an operation refuses a query parameter it does not read, public ones included', async () => {
    const wrong: string[] = [];
    for (const { key, method, path, op } of operations) {
      const url = `${path.replace(/\{[^}]+\}/g, `x_${SAMPLE_ID}`)}?expand=owner`;
      const response = await api.request(method.toUpperCase(), url, { body: op.requestBody ? {} : undefined });
      const refused = response.status === 422 && response.body.error.message === 'expand: is not a known field';
      if (refused !== Boolean(op.responses['422'])) wrong.push(`${key} answers ${response.status}, documents 422: ${Boolean(op.responses['422'])}`);
    }
    // Only the tracking, health and docs routes take any parameter (mail clients, link scanners, probes and browsers add them).
    expect(wrong).toEqual([]);
    expect(operations.filter(({ op }) => !op.responses['422']).map(({ key }) => key).sort()).toEqual(
      ['GET /docs', 'GET /health', 'GET /health/live', 'GET /openapi.json', 'GET /t/c/{token}', 'GET /t/o/{token}'],
    );
  });

  it("gives each list's cursors the pattern of its own ids, and the list refuses exactly the cursors the pattern refuses", async () => {
    const lists = operations.filter(({ op }) => op.parameters?.some((parameter: Json) => parameter.name === 'starting_after' && parameter.schema.pattern));
    expect(lists.map(({ key }) => key).sort()).toEqual(['GET /v1/api-keys', 'GET /v1/domains', 'GET /v1/emails', 'GET /v1/webhooks', 'GET /v1/webhooks/{id}/deliveries']);
    const mismatches: string[] = [];
    for (const { key, path, op } of lists) {
      for (const name of ['starting_after', 'ending_before']) {
        const { pattern } = op.parameters.find((parameter: Json) => parameter.name === name).schema;
        for (const prefix of Object.values(contracts.LIST_ID_PREFIXES)) {
          const cursor = `${prefix}${SAMPLE_ID}`;
          const response = await api.get(`${path.replace(/\{[^}]+\}/g, `wh_${SAMPLE_ID}`)}?${name}=${cursor}`);
          const documented = new RegExp(pattern).test(cursor);
          if (documented === (response.status === 422)) mismatches.push(`${key} ${name}=${cursor}: pattern ${pattern}, answer ${response.status}`);
        }
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('has no stale hand-written entries: every keyed override names a documented operation', () => {
    const documented = operations.map(({ key }) => key);
    const keys = [...Object.keys(CONFLICTS), ...Object.keys(BODY_OVERRIDES), ...Object.keys(RESPONSES_BY_OPERATION), ...Object.keys(CURSOR_ID_PREFIXES)];
    expect(keys.filter((key) => !documented.includes(key))).toEqual([]);
    const refs = refsIn(doc).filter((name) => !name.startsWith('#'));
    expect(refs.filter((name) => !doc.components.schemas[name])).toEqual([]);
  });

  it('serves the interactive reference at /docs from local swagger-ui assets (no CDN)', async () => {
    const page = await api.get('/docs', { key: null });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.body).toContain('docs/swagger-ui-bundle.js');
    expect(page.body).not.toMatch(/https?:\/\//);
    for (const asset of ['swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'swagger-ui.css', 'init.js']) {
      const response = await api.get(`/docs/${asset}`, { key: null });
      expect({ asset, status: response.status }).toEqual({ asset, status: 200 });
    }
    const init = (await api.get('/docs/init.js', { key: null })).body;
    expect(init).toContain("url: 'openapi.json'");
    // swagger-ui's default validator badge would hand the document's URL to validator.swagger.io.
    expect(init).toContain("validatorUrl: 'none'");
    const unknown = await api.get('/docs/..%2Fpackage.json', { key: null });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
  });
});
