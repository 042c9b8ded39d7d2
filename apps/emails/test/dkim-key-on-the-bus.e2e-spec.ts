import { randomBytes } from 'node:crypto';
import { authenticate } from 'mailauth';
import { connect, NatsConnection } from 'nats';
import { SecretBox, secretBoxFromConfig } from '@mailroom/auth';
import { DomainsSubjects } from '@mailroom/contracts';
import { setLogDestination } from '@mailroom/runtime';
import { eventually, scrapeMetrics } from '@mailroom/testing';
import { DeliveryHarness, emailReaching, routeMailTo, startDeliveryHarness, testDnsResolver, verifiedDomain } from './support/delivery-harness';

/** Each line of base64 between the PEM armour: any of them on the bus is key material in the clear. */
function pemBodyLines(pem: string): string[] {
  return pem.split('\n').filter((line) => line && !line.startsWith('-----'));
}

/** Sends an email from `domain` to `to` (a recipient no other email went to) and answers the DKIM verdicts (and selectors) of the message that reached it. */
async function dkimOfDelivered(harness: DeliveryHarness, domain: string, to: string): Promise<Array<{ result: string; selector?: string }>> {
  const sent = await harness.stack.api.post('/v1/emails', { from: `hi@${domain}`, to, subject: 'Signed', text: 'Hello' });
  expect(sent.status).toBe(202);
  await emailReaching(harness.stack, harness.stack.rootKey, sent.body.id, ['delivered']);
  const [message] = harness.smtp.messagesFor(to);
  const verdict = await authenticate(message.raw, { ip: '127.0.0.1', helo: 'mailroom.test', sender: `bounces@${domain}`, mta: 'mx.example.test', resolver: testDnsResolver(harness.dns) });
  return verdict.dkim.results.map((result: { status: { result: string }; selector?: string }) => ({ result: result.status.result, selector: result.selector }));
}

async function dkimResultsOfDelivered(harness: DeliveryHarness, domain: string, to: string): Promise<string[]> {
  return (await dkimOfDelivered(harness, domain, to)).map((verdict) => verdict.result);
}

/**
 * NATS has no authentication by default: anyone who reaches the bus can watch
 * every reply, or ask domains.domain.sender-identity themselves. The DKIM
 * private key must cross it sealed, and mail must still be signed.
 */
describe('the DKIM private key on the bus', () => {
  let harness: DeliveryHarness;
  let eavesdropper: NatsConnection;
  const overheard: string[] = [];

  beforeAll(async () => {
    harness = await startDeliveryHarness();
    routeMailTo(harness.dns, 'example.test');
    // Subscribed to everything (replies to _INBOX.* included) before the domain exists.
    eavesdropper = await connect({ servers: harness.stack.nats.url });
    eavesdropper.subscribe('>', { callback: (_error, message) => void overheard.push(Buffer.from(message.data).toString('utf8')) });
    await eavesdropper.flush();
  }, 120000);
  afterAll(async () => {
    await eavesdropper?.close();
    await harness?.stop();
  });

  const storedKeyOf = async (domainId: string) => {
    const { rows } = await harness.db.query(`SELECT dkim_private_key_sealed FROM domains.domains WHERE id = $1`, [domainId]);
    return secretBoxFromConfig(harness.stack.configFor('domains')).decrypt(rows[0].dkim_private_key_sealed, domainId);
  };

  it('never crosses in plaintext while mail from the domain is signed and delivered', async () => {
    const domain = await verifiedDomain(harness, 'sealed.test');
    expect(await dkimResultsOfDelivered(harness, 'sealed.test', 'ann@example.test')).toEqual(['pass']);

    // The sender-identity reply went by on the bus (the eavesdropper saw the selector), and carried no key.
    await eventually(() => overheard.some((text) => text.includes('privateKeySealed')), 5000);
    const traffic = overheard.join('\n');
    expect(traffic).not.toContain('-----BEGIN');
    for (const line of pemBodyLines(await storedKeyOf(domain.id))) expect(traffic).not.toContain(line);
  });

  it('is sealed in the reply to anyone who asks for it on the bus', async () => {
    const domain = await verifiedDomain(harness, 'asked.test');
    // A raw request in Nest's wire format, as an attacker with only a NATS client would send it.
    const reply = await eavesdropper.request(DomainsSubjects.senderIdentity, JSON.stringify({ pattern: DomainsSubjects.senderIdentity, data: { name: domain.name }, id: 'attacker-1' }), { timeout: 5000 });
    const text = Buffer.from(reply.data).toString('utf8');
    const { response } = JSON.parse(text);
    expect(response.identity).toMatchObject({ domainId: domain.id, dkim: { privateKeySealed: expect.stringMatching(/^v1\./), sealedWithKeyId: expect.stringMatching(/^[0-9a-f]{8}$/) } });
    expect(response.identity.dkim.privateKeyPem).toBeUndefined();
    expect(text).not.toContain('-----BEGIN');
    for (const line of pemBodyLines(await storedKeyOf(domain.id))) expect(text).not.toContain(line);
  });
});

/**
 * The emails service opens the key with its own ENCRYPTION_KEY. When that is
 * not the domains service's, mail must not go out unsigned: each attempt fails
 * as a temporary failure naming the cause, and a log line says so.
 */
describe('an emails service whose ENCRYPTION_KEY differs from the domains service', () => {
  let harness: DeliveryHarness;
  const lines: string[] = [];

  beforeAll(async () => {
    setLogDestination({ write: (line: string) => void lines.push(line) });
    // Every app's log level: the apps share this process, and Nest's Logger writes through the last one booted.
    harness = await startDeliveryHarness({ DELIVERY_RETRY_SCHEDULE: '300ms,300ms', LOG_LEVEL: 'error' }, undefined, {
      emails: { ENCRYPTION_KEY: randomBytes(32).toString('base64') },
    });
    routeMailTo(harness.dns, 'example.test');
  }, 120000);
  afterAll(async () => {
    await harness?.stop();
    setLogDestination(undefined);
  });

  it('fails the delivery visibly, after its retries, and sends nothing unsigned', async () => {
    const domain = await verifiedDomain(harness, 'mismatch.test');
    const sent = await harness.stack.api.post('/v1/emails', { from: 'hi@mismatch.test', to: 'bob@example.test', subject: 'Never unsigned', text: 'Hello' });
    expect(sent.status).toBe(202);

    const email = await emailReaching(harness.stack, harness.stack.rootKey, sent.body.id, ['failed']);
    expect(email.recipients[0]).toMatchObject({
      status: 'failed',
      attempts: 3,
      smtpReply: expect.stringContaining(`the DKIM key of mismatch.test, sealed by the domains service, does not open with this service's ENCRYPTION_KEY`),
    });
    const [domainsKeyId, emailsKeyId] = (['domains', 'emails'] as const).map((app) => secretBoxFromConfig(harness.stack.configFor(app)).keyId);
    expect(email.recipients[0].smtpReply).toContain(`(the domains service's key id is ${domainsKeyId}, this service's ${emailsKeyId})`);
    expect(harness.smtp.messagesFor('bob@example.test')).toHaveLength(0);

    const logged = lines.map((line) => JSON.parse(line)).filter((entry) => entry.context === 'SenderIdentityCache');
    expect(logged[0]).toMatchObject({ level: 50, err: expect.stringContaining('give the emails service the key the domains service seals with') });
    const sealed = (await harness.db.query(`SELECT dkim_private_key_sealed FROM domains.domains WHERE id = $1`, [domain.id])).rows[0].dkim_private_key_sealed;
    expect(lines.join('\n')).not.toContain(sealed);
    expect(lines.join('\n')).not.toContain('-----BEGIN');
  });
});

/**
 * ENCRYPTION_KEY changes from A to B on both services, with A in ENCRYPTION_KEY_PREVIOUS: the DKIM keys the
 * domains service sealed under A sign mail at once, it seals them again under B, and once it has, A can go.
 */
describe('DKIM keys across an ENCRYPTION_KEY rotation', () => {
  const keyA = randomBytes(32).toString('base64');
  const keyB = randomBytes(32).toString('base64');
  const appEnv = { domains: { ENCRYPTION_KEY: keyA } as Record<string, string>, emails: { ENCRYPTION_KEY: keyA } as Record<string, string> };
  let harness: DeliveryHarness;

  beforeAll(async () => {
    harness = await startDeliveryHarness({}, undefined, appEnv);
    routeMailTo(harness.dns, 'example.test');
  }, 120000);
  afterAll(() => harness?.stop());

  /** Restarts both services with this key environment, the domains service first (its boot seals again). */
  async function restartWith(env: Record<string, string>): Promise<void> {
    for (const app of ['domains', 'emails'] as const) {
      await harness.stack.stopApp(app);
      appEnv[app] = { ...env };
      await harness.stack.startApp(app);
    }
  }

  const storedSealed = async (domainId: string): Promise<string> =>
    (await harness.db.query(`SELECT dkim_private_key_sealed FROM domains.domains WHERE id = $1`, [domainId])).rows[0].dkim_private_key_sealed;

  const gauge = async () => (await scrapeMetrics(harness.stack.opsUrl('domains'))).find('mailroom_secrets_sealed_with_previous_key', { kind: 'dkim_key' })[0]?.value;

  /** The domain's other keys (a rotation's pending and retiring ones), opened with `key`, by selector; a value it does not open is null. */
  const otherKeysOpenedWith = async (domainId: string, key: string): Promise<Record<string, string | null>> => {
    const { rows } = await harness.db.query(`SELECT selector, private_key_sealed FROM domains.dkim_keys WHERE domain_id = $1 ORDER BY selector`, [domainId]);
    return Object.fromEntries(
      rows.map((row: { selector: string; private_key_sealed: string }) => {
        try {
          return [row.selector, new SecretBox(key).decrypt(row.private_key_sealed, domainId)];
        } catch {
          return [row.selector, null];
        }
      }),
    );
  };

  it('signs at once with keys sealed under the previous key, seals them again under the new one (a rotation\'s pending and retiring keys too), and signs without the old key', async () => {
    const domain = await verifiedDomain(harness, 'rotated.test');
    // A DKIM rotation promoted (the first key retiring) and another one pending: three keys of the domain sealed under A.
    const api = harness.stack.api;
    const rotation = (await api.post(`/v1/domains/${domain.id}/dkim/rotate`)).body.dkimRotation;
    harness.dns.set(`${rotation.record.host}.${domain.name}`, 'CNAME', rotation.record.value);
    // A key is promoted once every domains replica answers it, a minute after it was made: that minute, passed.
    await harness.db.query(`UPDATE domains.dkim_keys SET created_at = created_at - interval '1 minute' WHERE domain_id = $1`, [domain.id]);
    expect((await api.post(`/v1/domains/${domain.id}/verify`)).body.status).toBe('verified');
    expect((await api.get(`/v1/domains/${domain.id}`)).body.dkimRotation).toBeNull();
    expect((await api.post(`/v1/domains/${domain.id}/dkim/rotate`)).body.dkimRotation.status).toBe('pending');
    const pem = new SecretBox(keyA).decrypt(await storedSealed(domain.id), domain.id);
    const otherPems = await otherKeysOpenedWith(domain.id, keyA);
    expect(Object.values(otherPems)).toEqual([expect.stringContaining('BEGIN PRIVATE KEY'), expect.stringContaining('BEGIN PRIVATE KEY')]);

    await restartWith({ ENCRYPTION_KEY: keyB, ENCRYPTION_KEY_PREVIOUS: keyA });
    // Signed with the promoted key, verified through the zone as a receiver does.
    expect(await dkimOfDelivered(harness, 'rotated.test', 'cat@example.test')).toEqual([{ result: 'pass', selector: rotation.selector }]);
    const underB = await eventually(async () => {
      try {
        return new SecretBox(keyB).decrypt(await storedSealed(domain.id), domain.id);
      } catch {
        return false;
      }
    });
    expect(underB).toBe(pem);
    expect(await eventually(async () => (await gauge()) === 0)).toBe(true);
    expect(await otherKeysOpenedWith(domain.id, keyB)).toEqual(otherPems);

    await restartWith({ ENCRYPTION_KEY: keyB });
    expect(await dkimResultsOfDelivered(harness, 'rotated.test', 'dan@example.test')).toEqual(['pass']);
  });
});
