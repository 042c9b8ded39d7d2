import { ApiClient, eventually } from '@mailroom/testing';
import { WebhookReceiver } from '../../../webhook-dispatcher/test/support/webhook-receiver';
import { DeliveryHarness, LOOPBACK_WEBHOOKS_ENV, routeMailTo, startDeliveryHarness, verifiedDomain } from './delivery-harness';
import { isCleanUnavailable, SendOutcome, SteadySender } from './steady-sender';

/** The email id a message at the SMTP server carries in its Message-ID `<email_…@acme.test>`. */
const messageIdOf = (raw: Buffer) => /^Message-ID: <([^@>]+)@acme\.test>\r$/m.exec(raw.toString())?.[1] ?? 'no Message-ID';

/** The whole stack in one process, acme.test verified, example.test routed to the test SMTP server, and a webhook on email.delivered. */
export interface StackUnderFault {
  harness: DeliveryHarness;
  receiver: WebhookReceiver;
  domainId: string;
  stop(): Promise<void>;
}

export async function startStackUnderFault(): Promise<StackUnderFault> {
  const receiver = await new WebhookReceiver().start();
  // Short leases: an email or a webhook delivery claimed before a fault comes back soon.
  const harness = await startDeliveryHarness(Object.assign({ DELIVERY_LEASE_MS: '3000', DELIVERY_RETRY_SCHEDULE: '200ms,500ms,1s,1s,2s', RPC_TIMEOUT_MS: '10000' }, LOOPBACK_WEBHOOKS_ENV));
  routeMailTo(harness.dns, 'example.test');
  const domainId = (await verifiedDomain(harness, 'acme.test')).id;
  const webhook = await harness.stack.api.post('/v1/webhooks', { url: receiver.url(), events: ['email.delivered'] });
  if (webhook.status !== 201) throw new Error(`creating the webhook answered ${webhook.status}: ${JSON.stringify(webhook.body)}`);
  return {
    harness,
    receiver,
    domainId,
    stop: async () => {
      await harness.stop();
      await receiver.stop();
    },
  };
}

/** A sender at a steady pace from acme.test to `<prefix><n>@example.test`, keyed sends retried through 5xx for 30 s. */
export function steadySenderTo(api: ApiClient, prefix: string): SteadySender {
  return new SteadySender(api, { from: 'Acme <hi@acme.test>', recipientPrefix: prefix, domain: 'example.test', intervalMs: 40, keyedRetryMs: 30000, retryIntervalMs: 100 });
}

/**
 * Uses the API one request at a time while `busy()`: reads an accepted email, the email list, the domains, the
 * keys, analytics, the webhooks and the suppressions; creates a key, adds a suppression and deletes one added
 * earlier, patches the domain. Every answer that is neither 2xx nor a clean 503 is kept.
 */
export async function useApiWhile(api: ApiClient, sender: SteadySender, domainId: string, busy: () => boolean, freshKeys: string[] = []): Promise<{ requests: number; unclean: string[] }> {
  const unclean: string[] = [];
  /** Suppressions added (2xx) and not asked to be deleted yet (a DELETE answered 503 may have been done: not asked twice). */
  const suppressed: string[] = [];
  let requests = 0;
  for (let n = 0; busy(); n++) {
    const accepted = sender.outcomes.filter((outcome) => outcome.id);
    const toUnsuppress = suppressed[0];
    const uses: Array<[string, string, unknown?]> = [
      ['GET', '/v1/emails?limit=5'],
      ['GET', '/v1/domains'],
      ['GET', '/v1/api-keys'],
      ['GET', accepted.length ? `/v1/emails/${accepted[n % accepted.length].id}` : '/v1/emails?limit=1'],
      ['POST', '/v1/api-keys', { name: `fault ${n}`, permissions: ['emails:read'] }],
      ['POST', '/v1/suppressions', { email: `suppressed${n}@elsewhere.test` }],
      ['PATCH', `/v1/domains/${domainId}`, {}],
      ['GET', '/v1/analytics'],
      ['GET', '/v1/webhooks'],
      ['GET', '/v1/suppressions?limit=5'],
      toUnsuppress ? ['DELETE', `/v1/suppressions/${toUnsuppress}`] : ['GET', '/v1/suppressions?limit=1'],
      ['GET', '/v1/emails?limit=1', 'fresh key'],
    ];
    const [method, path, body] = uses[n % uses.length];
    const fresh = body === 'fresh key' ? freshKeys.shift() : undefined;
    const answer = await api.request(method, path, body === 'fresh key' ? { key: fresh } : { body }).then(
      (response) => {
        if (response.status < 300 && path === '/v1/suppressions') suppressed.push((body as { email: string }).email);
        if (method === 'DELETE') suppressed.shift();
        return `${response.status} ${response.body?.error?.code ?? ''}`.trim();
      },
      (error: Error & { cause?: { code?: string } }) => `fetch failed: ${error.cause?.code ?? error.message}`,
    );
    requests++;
    if (!/^2\d\d$/.test(answer) && !isCleanUnavailable(answer)) unclean.push(`${method} ${path}: ${answer}`);
  }
  return { requests, unclean };
}

/** Resolves once `sender` has had `count` more sends accepted than now. */
export function acceptedMore(sender: SteadySender, count = 10): Promise<boolean> {
  const before = sender.acceptedCount;
  return eventually(() => sender.acceptedCount >= before + count, 20000);
}

/**
 * Runs `fault` once `sender` is under way, while it sends and the API is used (useApiWhile, `freshKeys` among
 * the keys), and stops both once 10 more sends have been accepted after it. Answers what useApiWhile found.
 */
export async function faultUnderLoad(stack: StackUnderFault, sender: SteadySender, fault: () => Promise<void>, freshKeys: string[] = []): Promise<{ requests: number; unclean: string[] }> {
  let busy = true;
  const faulting = async () => {
    try {
      await acceptedMore(sender);
      await fault();
      await acceptedMore(sender);
    } finally {
      busy = false;
      sender.stop();
    }
  };
  const [, , using] = await Promise.all([sender.run(), faulting(), useApiWhile(stack.harness.stack.api, sender, stack.domainId, () => busy, freshKeys)]);
  return using;
}

/**
 * After the fault: every refusal was a clean 503 (and so was every answer in `unclean`, which must be empty), no
 * keyed send was lost, a send now is accepted at once, and every accepted email goes out once, shows delivered,
 * is counted once in analytics, and has its email.delivered posted to the webhook.
 */
export async function expectEveryAcceptedOnce(stack: StackUnderFault, sender: SteadySender, unclean: string[]): Promise<void> {
  const { harness, receiver } = stack;
  const { api } = harness.stack;
  const refusals = sender.outcomes.flatMap((outcome) => outcome.refusals);
  expect({ unclean: [...refusals.filter((refusal) => !isCleanUnavailable(refusal)), ...unclean], keyedLost: sender.outcomes.filter((o) => o.keyed && !o.id).length }).toEqual({
    unclean: [],
    keyedLost: 0,
  });

  const afterRecipient = `${sender.options.recipientPrefix}-after@${sender.options.domain}`;
  const after = await api.post('/v1/emails', { from: 'hi@acme.test', to: afterRecipient, subject: 'After', text: 'x' });
  expect(after.status).toBe(202);
  const afterOutcome = { recipient: afterRecipient, id: String(after.body.id) };
  const accepted = [...sender.outcomes.filter((outcome): outcome is SendOutcome & { id: string } => outcome.id !== undefined), afterOutcome];
  const atSmtp = () => new Set(harness.smtp.messages.map((message) => messageIdOf(message.raw)));
  await eventually(() => accepted.every((outcome) => atSmtp().has(outcome.id)), 30000, 200).catch((error: Error) => {
    const missing = accepted.filter((outcome) => !atSmtp().has(outcome.id)).map((outcome) => outcome.id);
    throw new Error(`${error.message}: ${missing.length} of ${accepted.length} accepted emails not at SMTP, e.g. ${missing.slice(0, 5).join(', ')}`);
  });

  // Once each: no process crashed, so no message may go out twice; a refused send (503, no key) at most once.
  const wrong = [...sender.outcomes, afterOutcome].flatMap((outcome) => {
    const ids = harness.smtp.messagesFor(outcome.recipient).map((message) => messageIdOf(message.raw));
    const fine = outcome.id ? ids.length === 1 && ids[0] === outcome.id : ids.length <= 1;
    return fine ? [] : [{ recipient: outcome.recipient, id: outcome.id, received: ids }];
  });
  expect(wrong).toEqual([]);

  const statuses = await eventually(async () => {
    const list = await Promise.all(accepted.map(async ({ id }) => (await api.get(`/v1/emails/${id}`)).body?.status));
    return list.every((status) => status === 'delivered') && list;
  }, 20000).catch(async () => Promise.all(accepted.map(async ({ id }) => `${id}: ${(await api.get(`/v1/emails/${id}`)).body?.status}`)));
  expect(new Set(statuses)).toEqual(new Set(['delivered']));
  expect((await api.get('/health', { key: null })).status).toBe(200);

  // The analytics projection is fed by the same events: each message at SMTP (one recipient apiece) counted once.
  const delivered = await eventually(async () => {
    const totals = (await api.get('/v1/analytics')).body?.totals;
    return totals?.delivered === atSmtp().size && totals.delivered;
  }, 20000).catch(async () => (await api.get('/v1/analytics')).body?.totals);
  expect(delivered).toBe(atSmtp().size);

  const posted = () => new Set(receiver.requests.map((request) => JSON.parse(request.rawBody).data?.emailId));
  await eventually(() => accepted.every((outcome) => posted().has(outcome.id)), 30000, 200).catch((error: Error) => {
    const missing = accepted.filter((outcome) => !posted().has(outcome.id)).map((outcome) => outcome.id);
    throw new Error(`${error.message}: no email.delivered webhook for ${missing.length} emails, e.g. ${missing.slice(0, 5).join(', ')}`);
  });
}
