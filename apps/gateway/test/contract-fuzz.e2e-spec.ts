import fc from 'fast-check';
import { ApiClient, ApiResponse, eventually, ProcessStack, Stack, startProcessStack, startStack } from '@mailroom/testing';
import { MailNetwork, startMailNetwork, verifiedDomainThrough } from '../../emails/test/support/delivery-harness';
import { WebhookReceiver } from '../../webhook-dispatcher/test/support/webhook-receiver';
import { AnswerRules, propertyNamesOf } from './support/answer-rules';
import { FIXTURE_OWNERS, FuzzFixtures } from './support/fuzz-fixtures';
import { CreatedData, ResourceLedger } from './support/resource-ledger';
import { hostileUrlText, hostileValue, mutatedBodyText, mutation, SAMPLE_ULID } from './support/hostile-values';
import { address, arbitraryOf, hostname, JsonSchema, ValueHints } from './support/schema-arbitraries';

/** Fixed so a failure reproduces; FUZZ_SEED and FUZZ_RUNS (per operation) explore further, e.g. FUZZ_RUNS=2000. */
const SEED = Number(process.env.FUZZ_SEED ?? 20261126);
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];
/** Stands for the real id of a path's resource until the request is built, just before it is sent (a fuzzed DELETE may have replaced it). */
const REAL = '\u0000real';
const APPS = ['keys', 'domains', 'emails', 'webhook-dispatcher', 'gateway'] as const;

type KeyName = 'root' | 'test' | 'restricted';
interface FuzzRequest {
  keyName: KeyName;
  method: string;
  url: string;
  bodyText?: string;
  headers: Record<string, string>;
}
interface Operation {
  key: string;
  method: string;
  path: string;
  op: JsonSchema;
}

/** Mostly JSON as clients write it; some that the API must refuse with 415 (another type, another charset). */
const CONTENT_TYPES = fc.oneof(
  { weight: 12, arbitrary: fc.constant('application/json') },
  fc.constantFrom(
    'application/json; charset=utf-8',
    'Application/JSON;charset="UTF-8"',
    'application/json; charset=utf-16',
    'application/json; charset=',
    'application/json;;',
    'application/merge-patch+json',
    'application/x-www-form-urlencoded',
    'text/plain',
    'application/json, text/plain',
    '',
  ),
);

/**
 * Every operation of the gateway's own OpenAPI document, called with requests
 * generated from its schemas and then mutated (wrong types, null, awkward
 * unicode, numbers at and past limits, deep nests, unknown, missing and
 * duplicated fields, ids of the wrong kind, broken percent-encoding), with a
 * full key, a test key and a narrow one, against the five apps as processes.
 * Every answer keeps the rules of AnswerRules; afterwards the stack is
 * healthy, and the data it holds is exactly what its 2xx answers said they
 * created, an Idempotency-Key reused giving the first email back.
 */
describe('the API, fuzzed from its OpenAPI document', () => {
  let network: MailNetwork;
  let stack: Stack;
  let processes: ProcessStack;
  let receiver: WebhookReceiver;
  let clients: Record<KeyName, ApiClient>;
  let doc: JsonSchema;
  let rules: AnswerRules;
  let ledger: ResourceLedger;
  let fixtures: FuzzFixtures;
  const failures = new Map<string, string>();
  /** Answers by operation and status: a generator that never gets past validation would show here. */
  const statuses: Record<string, Record<number, number>> = {};

  beforeAll(async () => {
    console.log(`contract fuzz: FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS}`);
    network = await startMailNetwork();
    stack = await startStack({ apps: [] });
    receiver = await new WebhookReceiver().start();
    processes = await startProcessStack(
      Object.assign({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: stack.databaseUrl, NATS_URL: stack.nats.url, RATE_LIMIT_PER_SECOND: '0' }, network.env, {
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      }),
    );
    const root = new ApiClient(processes.baseUrl, stack.rootKey);
    const test = root.withKey((await stack.issueKey({ name: 'fuzz test', mode: 'test', permissions: ['*'] })).key);
    const restricted = root.withKey(
      (await stack.issueKey({ name: 'fuzz narrow', mode: 'test', permissions: ['emails:send', 'emails:read', 'domains:*'], domainRestrictions: ['acme.test'] })).key,
    );
    clients = { root, test, restricted };
    await verifiedDomainThrough(root, network.dns, 'acme.test');
    ledger = await new ResourceLedger([root, test]).snapshot();
    const recordFixture = (operation: string, response: ApiResponse) => ledger.record(operation, { keyName: 'fixture', headers: {} }, response);
    fixtures = await new FuzzFixtures({ live: root, test }, receiver.url(), recordFixture).createAll();
    const answer = await root.get('/openapi.json', { key: null });
    expect(answer.status).toBe(200);
    doc = answer.body;
    rules = new AnswerRules(doc);
  }, 240000);

  afterAll(async () => {
    await processes?.stop();
    await receiver?.stop();
    await stack?.stop();
    await network?.stop();
  });

  /** Values for fields whose schema says only "string": ones the stack can act on, so requests get past the first check. */
  const hints = (): ValueHints => ({
    from: fc.constantFrom('hi@acme.test', 'Acme <hi@acme.test>'),
    to: fc.oneof(address, fc.array(address, { minLength: 1, maxLength: 3 })),
    cc: fc.oneof(address, fc.array(address, { maxLength: 2 }), fc.constant(null)),
    bcc: fc.oneof(address, fc.constant(null)),
    replyTo: fc.oneof(address, fc.constant(null)),
    email: address,
    url: fc.constantFrom(receiver.url(), 'https://hooks.example.org/in'),
    events: fc.array(fc.constantFrom('email.delivered', 'email.bounced', 'email.opened', '*'), { minLength: 1, maxLength: 3 }),
    'DomainCreateDto.name': hostname,
    trackingDomain: fc.constantFrom('links.acme.test', null),
    domainRestrictions: fc.array(fc.constant('acme.test'), { maxLength: 1 }),
    ipRestrictions: fc.array(fc.constantFrom('127.0.0.1', '10.0.0.0/8', '::1', '::ffff:127.0.0.0/104'), { maxLength: 2 }),
  });

  function operationsOf(): Operation[] {
    return Object.entries(doc.paths as JsonSchema).flatMap(([path, item]) =>
      Object.entries(item as JsonSchema)
        .filter(([method]) => HTTP_METHODS.includes(method))
        .map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, method, path, op: op as JsonSchema })),
    );
  }

  /** A path parameter: mostly the real id of the resource (REAL, resolved for the key's mode when the request is built), else an id of any kind that names nothing, or raw hostile text. */
  function pathValue(): fc.Arbitrary<string> {
    const unknown = fc.constantFrom('key_', 'dom_', 'email_', 'wh_', 'whd_').map((prefix) => `${prefix}${SAMPLE_ULID}`);
    return fc.oneof({ weight: 6, arbitrary: fc.constant(REAL) }, { weight: 1, arbitrary: unknown }, { weight: 2, arbitrary: hostileUrlText });
  }

  /** The fixture a path's REAL stands for, in the key's mode; a token for the tracking routes. */
  function realId(path: string, keyName: KeyName): string {
    const owner = FIXTURE_OWNERS.find((prefix) => path.startsWith(`${prefix}/`));
    return owner ? encodeURIComponent(fixtures.idOf(keyName === 'root' ? 'live' : 'test', owner)) : `tok_${SAMPLE_ULID}`;
  }

  /** Each parameter mostly left out, else valid, now and then hostile; rarely one the operation does not take, or one twice. */
  function queryArbitrary(parameters: JsonSchema[]): fc.Arbitrary<string[]> {
    const absent = { weight: 5, arbitrary: fc.constant(undefined) };
    const given = parameters.map((parameter) =>
      fc.oneof(
        absent,
        { weight: 2, arbitrary: arbitraryOf(parameter.schema, doc.components.schemas, { to: address, domain: hostname }).map((value) => `${parameter.name}=${encodeURIComponent(String(value))}`) },
        { weight: 1, arbitrary: hostileUrlText.map((text) => `${parameter.name}=${text}`) },
      ),
    );
    const extra = fc.oneof(
      absent,
      fc.constantFrom('expand=x', '__proto__=x', 'constructor=x', 'limit=1&limit=2', '=x', '&&', 'a=%ZZ', 'tags[]=a', 'from_date=a&from_date=b'),
      hostileUrlText.map((text) => `${text}=1`),
    );
    return fc.tuple(fc.tuple(...given), extra).map(([values, more]) => [...values, more].filter((part): part is string => part !== undefined));
  }

  function requestArbitrary({ method, path, op }: Operation): fc.Arbitrary<FuzzRequest> {
    const pathNames = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
    const queryParameters = (op.parameters ?? []).filter((parameter: JsonSchema) => parameter.in === 'query');
    const bodySchema = op.requestBody?.content?.['application/json']?.schema;
    // fetch sends no body with a GET (and the gateway reads none beyond its media type).
    const body: fc.Arbitrary<string | undefined> = bodySchema
      ? fc.tuple(arbitraryOf(bodySchema, doc.components.schemas, hints()), mutation).map(([valid, change]) => mutatedBodyText(valid, change))
      : method === 'get'
        ? fc.constant(undefined)
        : fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, fc.constantFrom('', '{}', '[]', 'null'), hostileValue.map((value) => JSON.stringify(value)));
    const takesIdempotencyKey = (op.parameters ?? []).some((parameter: JsonSchema) => parameter.in === 'header' && parameter.name === 'Idempotency-Key');
    const idempotencyKey = takesIdempotencyKey
      ? fc.oneof(fc.constant(undefined), fc.constantFrom('fuzz-1', 'fuzz-2', 'fuzz-3', 'k'.repeat(257), ' ', 'ü', 'a\tb'))
      : fc.constant(undefined);
    // Mostly the operation's own method; now and then one the path does not take, which must answer 405 (or 404).
    const otherMethod = fc.oneof({ weight: 19, arbitrary: fc.constant(method.toUpperCase()) }, fc.constantFrom('PUT', 'OPTIONS', 'DELETE', 'PATCH', 'POST'));
    return fc
      .record({
        keyName: fc.constantFrom<KeyName>('root', 'root', 'test', 'test', 'restricted'),
        method: method === 'get' ? fc.constant('GET') : otherMethod,
        contentType: CONTENT_TYPES,
        segments: fc.tuple(...pathNames.map(pathValue)),
        query: queryArbitrary(queryParameters),
        bodyText: body,
        idempotencyKey,
      })
      .map(({ keyName, method: sentMethod, contentType, segments, query, bodyText, idempotencyKey: key }) => {
        let index = 0;
        const filled = path.replace(/\{[^}]+\}/g, () => {
          const segment = segments[index++];
          return segment === REAL ? realId(path, keyName) : segment;
        });
        const headers: Record<string, string> = bodyText === undefined ? {} : { 'content-type': contentType };
        if (key !== undefined) headers['idempotency-key'] = key;
        return { keyName, method: sentMethod, url: query.length ? `${filled}?${query.join('&')}` : filled, bodyText, headers };
      });
  }

  /** Field names a validation message of this request may start with: the body's, the query's and the operation's own. */
  function fieldNamesOf(operation: Operation, request: FuzzRequest): Set<string> {
    const names = propertyNamesOf(operation.op.requestBody?.content?.['application/json']?.schema, doc.components.schemas);
    for (const parameter of operation.op.parameters ?? []) names.add(parameter.name);
    names.add('body');
    const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
    for (const part of query.split('&')) names.add(safeDecode(part.split('=')[0]));
    try {
      const parsed = request.bodyText ? JSON.parse(request.bodyText) : undefined;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) Object.keys(parsed).forEach((name) => names.add(name));
    } catch {
      // Not JSON: the answer is a 400, which names no field.
    }
    return names;
  }

  async function send(request: FuzzRequest): Promise<ApiResponse | null> {
    try {
      return await clients[request.keyName].request(request.method, request.url, { rawBody: request.bodyText, headers: request.headers });
    } catch (error) {
      // fetch refuses to send some header values (a tab, say); those never reach the API.
      if (error instanceof TypeError && /header/i.test(String((error as Error).message))) return null;
      throw error;
    }
  }

  it('answers every generated and mutated request within the rules, on every operation', async () => {
    const operations = operationsOf();
    expect(operations.length).toBeGreaterThan(30);
    for (const operation of operations) {
      await fc.assert(
        fc.asyncProperty(requestArbitrary(operation), fc.constantFrom(1, 1, 1, 1, 1, 1, 1, 1, 1, 3), async (request, copies) => {
          // Now and then the same request several times at once, as a retrying client sends it: a race must answer as calmly.
          const responses = await Promise.all(Array.from({ length: copies }, () => send(request)));
          // Sent with another method, the request is that method's operation on the path, if the document has one.
          const answered = operations.find(({ path, method }) => path === operation.path && method === request.method.toLowerCase()) ?? operation;
          for (const response of responses) {
            if (!response) continue;
            const broken = rules.broken({ operation: answered.key, url: request.url, bodyText: request.bodyText }, answered.op, response, fieldNamesOf(answered, request));
            const where = `${answered.key} (${request.method}): ${broken}`;
            if (broken && !failures.has(where)) {
              failures.set(where, `${request.keyName} ${copies}× ${request.method} ${request.url.slice(0, 200)} ${request.bodyText?.slice(0, 300) ?? ''} ${JSON.stringify(request.headers)} → ${response.status} ${JSON.stringify(response.body)?.slice(0, 300)}`);
            }
            ledger.record(answered.key, request, response);
            await fixtures.replaceDeleted(answered.key, response);
            const tally = (statuses[answered.key] ??= {});
            tally[response.status] = (tally[response.status] ?? 0) + 1;
          }
        }),
        { seed: SEED, numRuns: RUNS },
      );
    }
    console.log(`contract fuzz answers by status:\n${Object.entries(statuses).map(([key, tally]) => `${key} ${JSON.stringify(tally)}`).join('\n')}`);
    expect([...failures].map(([where, example]) => `${where}\n    e.g. ${example}`)).toEqual([]);
  }, 600000);

  it('is still healthy afterwards: every process ready, a key still reads', async () => {
    for (const app of APPS) {
      const ready = await fetch(`${processes.opsUrl(app)}/health/ready`).then((response) => response.status, (error: Error) => error.message);
      expect({ app, ready }).toEqual({ app, ready: 200 });
    }
    expect((await clients.root.get('/v1/api-keys')).status).toBe(200);
  });

  it('holds exactly the data its answers said they created and deleted, one email per Idempotency-Key', async () => {
    expect(ledger.reusedKeyMismatches).toEqual([]);
    const held: CreatedData = await eventually(async () => {
      const now = await ledger.listed();
      return JSON.stringify(now) === JSON.stringify(ledger.expected()) ? now : undefined;
    }, 15000).catch(() => ledger.listed());
    expect(held).toEqual(ledger.expected());
  });
});

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
