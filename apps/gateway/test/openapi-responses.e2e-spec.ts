import { trackingTokensFromConfig } from '@mailroom/auth';
import { ApiClient, ApiResponse, eventually, RequestOptions } from '@mailroom/testing';
import { DomainsHarness, publish, startDomainsHarness, stopDomainsHarness, uniqueDomain } from '../../domains/test/domains-fixtures';
import { emailBody, inOneDay } from '../../emails/test/emails-api-fixtures';
import { WebhookReceiver } from '../../webhook-dispatcher/test/support/webhook-receiver';
import { documentSchemaCompiler, Json, Operation, operationsOf, SAMPLE_ID, schemaErrors } from './support/openapi-schemas';

type CallOptions = RequestOptions & { client?: ApiClient; query?: string };

/**
 * Every operation of the document answers, on a real stack, what the document says for the status it answers:
 * the body is validated against the documented schema with every listed object closed, so a field the document
 * does not list, a required one the API leaves out, or a wrong type, format or enum value fails.
 */
describe('OpenAPI responses: real answers match the documented schemas', () => {
  let harness: DomainsHarness;
  let receiver: WebhookReceiver;
  let api: ApiClient;
  /** Emails sent with a test key go to no SMTP server and need no verified domain. */
  let testApi: ApiClient;
  let operations: Map<string, Operation>;
  let compile: ReturnType<typeof documentSchemaCompiler>;
  const exercised = new Set<string>();
  const tokens = trackingTokensFromConfig({ NODE_ENV: 'test', ENCRYPTION_KEY: null });

  beforeAll(async () => {
    harness = await startDomainsHarness(
      // A small body limit, so a 413 takes no 10 MB request.
      { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_MS: '50', BODY_LIMIT_BYTES: '65536' },
      ['keys', 'domains', 'emails', 'webhook-dispatcher', 'gateway'],
    );
    receiver = await new WebhookReceiver().start();
    api = harness.stack.api;
    testApi = api.withKey((await harness.stack.issueKey({ name: 'test mode', mode: 'test' })).key);
    const document = await api.get('/openapi.json', { key: null });
    expect(document.status).toBe(200);
    operations = new Map(operationsOf(document.body).map((operation) => [operation.key, operation]));
    compile = documentSchemaCompiler(document.body, { strict: true });
  });
  afterAll(async () => {
    await receiver?.stop();
    await stopDomainsHarness(harness);
  });

  /** Calls one documented operation, `{name}` of its path filled from `params`, and records that it was exercised. */
  async function call(key: string, params: Record<string, string> = {}, options: CallOptions = {}): Promise<ApiResponse> {
    const [method, path] = key.split(' ');
    expect({ key, documented: operations.has(key) }).toEqual({ key, documented: true });
    const url = path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(params[name]));
    const response = await (options.client ?? api).request(method, `${url}${options.query ?? ''}`, options);
    exercised.add(key);
    return response;
  }

  /** The answer has the operation's documented success status, and its body the schema documented for it. */
  function expectSuccess(key: string, response: ApiResponse): void {
    const expected = Number(Object.keys(operations.get(key)!.op.responses).find((status) => status < '400'));
    // On another status the body (an error, usually) says why.
    const why = response.status === expected ? undefined : response.body;
    expect({ key, status: response.status, why }).toEqual({ key, status: expected, why: undefined });
    expectDocumentedBody(key, response);
  }

  /** An error answer: a documented status of the operation, with the Error schema. */
  function expectError(key: string, response: ApiResponse, status: number): void {
    expect({ key, status: response.status }).toEqual({ key, status });
    expect(operations.get(key)!.op.responses[String(status)].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    expectDocumentedBody(key, response);
  }

  function expectDocumentedBody(key: string, response: ApiResponse): void {
    const documented = operations.get(key)!.op.responses[String(response.status)];
    expect({ key, status: response.status, documented: Boolean(documented) }).toEqual({ key, status: response.status, documented: true });
    const [contentType, media] = Object.entries((documented.content ?? {}) as Json)[0] ?? [];
    if (!contentType) {
      // No content documented (the 302 of a tracked link): the answer has no body to speak of.
      expect({ key, body: response.body ?? '' }).toEqual({ key, body: '' });
      return;
    }
    expect({ key, contentType: response.headers.get('content-type')?.split(';')[0] }).toEqual({ key, contentType });
    if (contentType !== 'application/json') {
      expect({ key, body: typeof response.body }).toEqual({ key, body: 'string' });
      return;
    }
    const validate = compile(media.schema);
    const valid = validate(response.body);
    expect({ key, status: response.status, errors: valid ? [] : schemaErrors(validate), body: valid ? 'valid' : response.body }).toEqual({
      key,
      status: response.status,
      errors: [],
      body: 'valid',
    });
    // Every object names its type (the interface's conventions): the schema pins it, so an answer of another type fails.
    if (typeof response.body?.object === 'string') {
      const otherType = Object.assign({}, response.body, { object: `not_${response.body.object}` });
      expect({ key, status: response.status, pinsObject: !validate(otherType) }).toEqual({ key, status: response.status, pinsObject: true });
    }
  }

  async function succeeds(key: string, params: Record<string, string> = {}, options: CallOptions = {}): Promise<any> {
    const response = await call(key, params, options);
    expectSuccess(key, response);
    return response.body;
  }

  it('answers the API key operations as documented', async () => {
    const created = await succeeds('POST /v1/api-keys', {}, { body: { name: 'documented', permissions: ['emails:send'], expiresAt: inOneDay() } });
    await succeeds('GET /v1/api-keys');
    await succeeds('GET /v1/api-keys/{id}', { id: created.id });
    await succeeds('PATCH /v1/api-keys/{id}', { id: created.id }, { body: { name: 'renamed', domainRestrictions: ['example.com'] } });
    await succeeds('DELETE /v1/api-keys/{id}', { id: created.id });
  });

  it('answers the domain operations as documented, verified or not, with a custom tracking domain or not', async () => {
    const name = uniqueDomain('documented');
    const created = await succeeds('POST /v1/domains', {}, { body: { name, region: 'eu' } });
    const incomplete = await succeeds('POST /v1/domains/{id}/verify', { id: created.id });
    expect(incomplete.missingRecords).toHaveLength(3);
    await succeeds('PATCH /v1/domains/{id}', { id: created.id }, { body: { trackingDomain: `track.${name}`, openTracking: false } });
    publish(harness.dns, name, created.dnsRecords);
    const verified = await succeeds('POST /v1/domains/{id}/verify', { id: created.id });
    expect({ status: verified.status, trackingDomainProblem: typeof verified.trackingDomainProblem }).toEqual({ status: 'verified', trackingDomainProblem: 'string' });
    const fetched = await succeeds('GET /v1/domains/{id}', { id: created.id });
    expect(fetched.verifiedAt).toEqual(expect.any(String));
    expect(fetched.dkimRotation).toBeNull();
    const rotating = await succeeds('POST /v1/domains/{id}/dkim/rotate', { id: created.id });
    expect(rotating.dkimRotation.status).toBe('pending');
    expect((await succeeds('GET /v1/domains/{id}', { id: created.id })).dkimRotation).toEqual(rotating.dkimRotation);
    await succeeds('GET /v1/domains');
    await succeeds('GET /v1/domains/dkim-zone');
    await succeeds('DELETE /v1/domains/{id}', { id: created.id });
  });

  it('answers a verification that found problems and failed lookups, for the records and the tracking domain, as documented', async () => {
    const name = uniqueDomain('troubled');
    const created = await succeeds('POST /v1/domains', {}, { body: { name } });
    await succeeds('PATCH /v1/domains/{id}', { id: created.id }, { body: { trackingDomain: `track.${name}` } });
    publish(harness.dns, name, created.dnsRecords, ['dkim']);
    // Two SPF records are a problem of the record (RFC 7208 section 4.5); a SERVFAIL is a failed lookup, not a missing record.
    harness.dns.set(name, 'TXT', ['v=spf1 -all', 'v=spf1 ~all']);
    harness.dns.servfail(`_dmarc.${name}`);
    harness.dns.servfail(`track.${name}`);
    const verification = await succeeds('POST /v1/domains/{id}/verify', { id: created.id });
    expect({
      recordProblems: verification.recordProblems?.map((problem: Json) => problem.purpose),
      dnsErrors: verification.dnsErrors?.map((error: Json) => error.purpose),
      trackingDomainDnsError: typeof verification.trackingDomainDnsError,
    }).toEqual({ recordProblems: ['spf'], dnsErrors: ['dmarc'], trackingDomainDnsError: 'string' });
    await succeeds('GET /v1/domains/{id}', { id: created.id });
  });

  it('answers the email operations as documented: sent, in a batch, scheduled, rescheduled, cancelled, listed', async () => {
    const client = testApi;
    const full = emailBody({
      to: ['delivered@example.com'],
      cc: ['cc@example.com'],
      html: '<p><a href="https://acme.test/">Hi</a></p>',
      headers: { 'X-Campaign': 'spring' },
      tags: ['welcome'],
      metadata: { userId: '42' },
      attachments: [{ filename: 'a.txt', content: 'eA==' }],
    });
    const sent = await succeeds('POST /v1/emails', {}, { client, body: full });
    await succeeds('GET /v1/emails/{id}', { id: sent.id }, { client });
    await succeeds('POST /v1/emails/batch', {}, { client, body: { emails: [emailBody({ to: 'delivered@example.com' }), emailBody({ to: 'delivered@example.com' })] } });
    const scheduled = await succeeds('POST /v1/emails', {}, { client, body: emailBody({ scheduledAt: inOneDay() }) });
    await succeeds('PATCH /v1/emails/{id}', { id: scheduled.id }, { client, body: { scheduledAt: new Date(Date.now() + 2 * 86_400_000).toISOString() } });
    await succeeds('POST /v1/emails/{id}/cancel', { id: scheduled.id }, { client });
    await succeeds('GET /v1/emails', {}, { client });
  });

  it('answers emails of every test-mode outcome, and replays of keyed sends, as documented', async () => {
    const client = testApi;
    const outcomes = ['bounced', 'complained', 'failed', 'suppressed', 'delayed'];
    const sent = await Promise.all(outcomes.map((outcome) => succeeds('POST /v1/emails', {}, { client, body: emailBody({ to: `${outcome}@example.com` }) })));
    const settled = await Promise.all(
      sent.map(({ id }) =>
        eventually(async () => {
          const email = await succeeds('GET /v1/emails/{id}', { id }, { client });
          const complaintPending = email.to[0] === 'complained@example.com' && email.complainedAt === null;
          return !['queued', 'sent'].includes(email.status) && !complaintPending ? email : undefined;
        }, 20_000),
      ),
    );
    expect(settled.map((email) => email.status)).toEqual(['bounced', 'delivered', 'failed', 'suppressed', 'delivered']);
    await succeeds('GET /v1/emails', {}, { client });
    await succeeds('GET /v1/suppressions', {}, { client });
    await succeeds('GET /v1/analytics', {}, { client });

    const single = { 'idempotency-key': `single-${Date.now()}` };
    const batch = { 'idempotency-key': `batch-${Date.now()}` };
    for (let round = 0; round < 2; round += 1) {
      await succeeds('POST /v1/emails', {}, { client, headers: single, body: emailBody({ to: 'delivered@example.com' }) });
      await succeeds('POST /v1/emails/batch', {}, { client, headers: batch, body: [emailBody({ to: 'delivered@example.com' })] });
    }
  });

  it('answers the tracking routes as documented, and the email then shows the open and the click', async () => {
    const sent = await testApi.post('/v1/emails', emailBody({ to: 'delivered@example.com', html: '<p>Hi</p>' }));
    expect(sent.status).toBe(202);
    await succeeds('GET /t/o/{token}', { token: `${tokens.sign({ emailId: sent.body.id, kind: 'open' })}.gif` }, { key: null });
    await succeeds('GET /t/c/{token}', { token: tokens.sign({ emailId: sent.body.id, kind: 'click', url: 'https://acme.test/' }) }, { key: null });
    await eventually(async () => {
      const email = await succeeds('GET /v1/emails/{id}', { id: sent.body.id }, { client: testApi });
      return email.opens === 1 && email.clicks === 1;
    }, 20_000);
  });

  it('answers the suppression operations as documented', async () => {
    const email = `documented-${Date.now()}@example.com`;
    await succeeds('POST /v1/suppressions', {}, { body: { email, reason: 'manual', details: 'asked by phone' } });
    await succeeds('GET /v1/suppressions');
    await succeeds('DELETE /v1/suppressions/{email}', { email });
  });

  it('answers the webhook operations as documented, deliveries and their retry included', async () => {
    const created = await succeeds('POST /v1/webhooks', {}, { body: { url: receiver.url(), events: ['*'], description: 'documented' } });
    const { id } = created;
    await succeeds('GET /v1/webhooks');
    await succeeds('PATCH /v1/webhooks/{id}', { id }, { body: { description: null } });
    await succeeds('GET /v1/webhooks/{id}/secret', { id });
    await succeeds('POST /v1/webhooks/{id}/secret/rotate', { id });
    const delivery = await succeeds('POST /v1/webhooks/{id}/test', { id });
    // The attempt is recorded just after the receiver answered; a retry before then is refused (409).
    await eventually(async () => (await succeeds('GET /v1/webhooks/{id}/deliveries', { id })).data[0]?.status === 'succeeded', 20_000);
    await succeeds('POST /v1/webhooks/{id}/deliveries/{deliveryId}/retry', { id, deliveryId: delivery.id });
    await eventually(async () => (await succeeds('GET /v1/webhooks/{id}', { id })).lastDeliveryStatus === 'success', 20_000);
    await succeeds('DELETE /v1/webhooks/{id}', { id });
  });

  it('answers a failing webhook and its failed deliveries as documented', async () => {
    const failing = await new WebhookReceiver().start();
    failing.reply = () => ({ status: 500, body: 'down' });
    try {
      const { id } = await succeeds('POST /v1/webhooks', {}, { body: { url: failing.url(), events: ['*'] } });
      await succeeds('POST /v1/webhooks/{id}/test', { id });
      const [delivery] = await eventually(async () => {
        const { data } = await succeeds('GET /v1/webhooks/{id}/deliveries', { id });
        return data[0]?.attempts >= 1 && data;
      }, 20_000);
      expect({ responseCode: delivery.responseCode, status: delivery.status }).toEqual({ responseCode: 500, status: expect.stringMatching(/^(retrying|failed)$/) });
      const webhook = await eventually(async () => {
        const fetched = await succeeds('GET /v1/webhooks/{id}', { id });
        return fetched.lastDeliveryStatus === 'failure' && fetched;
      }, 20_000);
      expect(webhook.failureCount).toBeGreaterThanOrEqual(1);
      await succeeds('GET /v1/webhooks', {}, { query: '?status=failing' });
    } finally {
      await failing.stop();
    }
  });

  it("describes under `webhooks` the requests the dispatcher POSTs: each real delivery's body fits the schema, its headers are the ones documented", async () => {
    const documented = await api.get('/openapi.json', { key: null });
    const post = documented.body.webhooks?.event?.post;
    expect(post).toMatchObject({ requestBody: { required: true, content: { 'application/json': { schema: expect.any(Object) } } } });
    const validateBody = documentSchemaCompiler(documented.body)(post.requestBody.content['application/json'].schema);
    const headers = new Map<string, Json>(post.parameters.filter((parameter: Json) => parameter.in === 'header').map((parameter: Json) => [parameter.name.toLowerCase(), parameter]));
    const validateHeader = new Map([...headers].map(([name, parameter]) => [name, documentSchemaCompiler(documented.body)(parameter.schema)]));
    const { id } = (await testApi.post('/v1/webhooks', { url: receiver.url('/documented'), events: ['*'] })).body;
    const started = Date.now();
    const seen = (): typeof receiver.requests => receiver.requests.filter((request) => request.receivedAt >= started);
    try {
      expect((await testApi.post('/v1/emails', emailBody({ to: 'delivered@example.com' }))).status).toBe(202);
      expect((await testApi.post(`/v1/webhooks/${id}/test`)).status).toBe(202);
      await eventually(() => new Set(seen().map((request) => request.headers['service-event-type'])).size >= 3, 20_000);
    } finally {
      await testApi.delete(`/v1/webhooks/${id}`);
    }
    for (const request of seen()) {
      const kind = request.headers['service-event-type'];
      const body = JSON.parse(request.rawBody);
      expect({ kind, errors: validateBody(body) ? [] : schemaErrors(validateBody) }).toEqual({ kind, errors: [] });
      const sent = Object.keys(request.headers).filter((name) => /^(service-|webhook-|user-agent$)/.test(name));
      expect({ kind, undocumented: sent.filter((name) => !headers.has(name)) }).toEqual({ kind, undocumented: [] });
      const missing = [...headers].filter(([name, parameter]) => parameter.required && !(name in request.headers)).map(([name]) => name);
      expect({ kind, missing }).toEqual({ kind, missing: [] });
      const invalid = sent.filter((name) => !validateHeader.get(name)?.(request.headers[name]));
      expect({ kind, invalid: invalid.map((name) => `${name}: ${request.headers[name]}`) }).toEqual({ kind, invalid: [] });
    }
  });

  it('answers the health and documentation routes as documented', async () => {
    await succeeds('GET /health', {}, { key: null });
    await succeeds('GET /health/live', {}, { key: null });
    await succeeds('GET /openapi.json', {}, { key: null });
    await succeeds('GET /docs', {}, { key: null });
  });

  it('answers errors (400, 401, 403, 404, 409, 413, 415, 422) with the Error schema', async () => {
    expectError('GET /v1/emails', await call('GET /v1/emails', {}, { key: null }), 401);
    const { key: unprivileged } = await harness.stack.issueKey({ permissions: [] });
    expectError('GET /v1/domains', await call('GET /v1/domains', {}, { key: unprivileged }), 403);
    expectError('GET /v1/emails/{id}', await call('GET /v1/emails/{id}', { id: `email_${SAMPLE_ID}` }, { client: testApi }), 404);
    const headers = { 'idempotency-key': `documented-${Date.now()}` };
    expect((await testApi.post('/v1/emails', emailBody({ to: 'delivered@example.com' }), { headers })).status).toBe(202);
    expectError('POST /v1/emails', await call('POST /v1/emails', {}, { client: testApi, headers, body: emailBody({ subject: 'Another' }) }), 409);
    const webhook = { url: 'https://hooks.example.com/documented', events: ['*'] };
    expect((await call('POST /v1/webhooks', {}, { headers, body: webhook })).status).toBe(201);
    expectError('POST /v1/webhooks', await call('POST /v1/webhooks', {}, { headers, body: { ...webhook, events: ['email.sent'] } }), 409);
    expectError('POST /v1/webhooks', await call('POST /v1/webhooks', {}, { body: { url: 'not a url', events: ['*'] } }), 422);
    expectError('POST /v1/suppressions', await call('POST /v1/suppressions', {}, { rawBody: '{bad', headers: { 'content-type': 'application/json' } }), 400);
    expectError('POST /v1/api-keys', await call('POST /v1/api-keys', {}, { rawBody: 'name', headers: { 'content-type': 'text/plain' } }), 415);
    expectError('POST /v1/emails', await call('POST /v1/emails', {}, { client: testApi, body: emailBody({ text: 'x'.repeat(70_000) }) }), 413);
  });

  // After the others: it stops a service.
  it('answers GET /health with the same documented body, 503, while a service is down, and its routes 503 with the Error schema', async () => {
    await harness.stack.stopApp('webhook-dispatcher');
    const response = await call('GET /health', {}, { key: null });
    expect(response.body.services?.['webhook-dispatcher']).toBe('down');
    expectDocumentedBody('GET /health', response);
    expect(response.status).toBe(503);
    expectError('GET /v1/webhooks', await call('GET /v1/webhooks'), 503);
  });

  // Last, so it sees what every test above exercised.
  it('exercised every documented operation', () => {
    expect([...operations.keys()].filter((key) => !exercised.has(key))).toEqual([]);
  });
});
