import { Client } from 'pg';
import { EnvName } from '@mailroom/config';
import { Resolver } from 'node:dns/promises';
import { ApiClient, AppProcess, eventually, freeDnsPort, PROCESS_READY_TIMEOUT_MS, Stack, StackOptions, startAppProcess, startStack, startTestDns, startTestSmtp, TestDns, TestSmtp } from '@mailroom/testing';

export const DKIM_ZONE = 'dkim.mailroom.localhost';
export const SPF_INCLUDE = 'spf.mailroom.localhost';

export interface DeliveryHarness {
  stack: Stack;
  smtp: TestSmtp;
  dns: TestDns;
  db: Client;
  stop(): Promise<void>;
}

/** Webhooks to a loopback http:// receiver, with short waits and leases, so a crashed or cut-off dispatcher's claims come back within a test. */
export const LOOPBACK_WEBHOOKS_ENV: Partial<Record<EnvName, string>> = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_RETRY_SCHEDULE: '0s,200ms,500ms,1s,2s,2s',
  WEBHOOK_LEASE_MS: '3000',
  WEBHOOK_POLL_MS: '50',
};

/** A test SMTP server as every routed recipient domain's MX, a test DNS server, and the environment that points the apps at them. */
export interface MailNetwork {
  smtp: TestSmtp;
  dns: TestDns;
  /** mx mode to `smtp` through `dns`, the domains service's DKIM responder delegated from `dns`, a compressed retry schedule. */
  env: Partial<Record<EnvName, string>>;
  stop(): Promise<void>;
}

export async function startMailNetwork(): Promise<MailNetwork> {
  const smtp = await startTestSmtp();
  const dns = await startTestDns();
  // The domains service answers its DKIM zone itself; the test DNS forwards that zone to it, as a delegation would.
  const dkimPort = await freeDnsPort();
  dns.forward(DKIM_ZONE, `127.0.0.1:${dkimPort}`);
  // What the operator publishes at SPF_INCLUDE: this host (loopback) may send.
  dns.set(SPF_INCLUDE, 'TXT', 'v=spf1 ip4:127.0.0.1 -all');
  const env = {
    DELIVERY_MODE: 'mx',
    DNS_SERVERS: dns.address,
    DNS_TIMEOUT_MS: '1000',
    SMTP_MX_PORT: String(smtp.port),
    // The test SMTP server is on loopback, which mx mode otherwise refuses to deliver to.
    DELIVERY_ALLOW_PRIVATE_MX: 'true',
    SMTP_HELO_NAME: 'mailroom.test',
    SMTP_TIMEOUT_MS: '3000',
    DELIVERY_RETRY_SCHEDULE: '500ms,500ms,500ms',
    DELIVERY_POLL_MS: '50',
    DELIVERY_LEASE_MS: '3000',
    DKIM_DNS_BIND: `127.0.0.1:${dkimPort}`,
    DKIM_ZONE,
    SPF_INCLUDE,
    // POST /v1/domains generates a 2048-bit RSA key while the gateway waits. Its random prime search has a long
    // tail, and on a loaded 2-core CI machine it has run past the default 5 s, failing a setup with a 503.
    RPC_TIMEOUT_MS: '20000',
  };
  return {
    smtp,
    dns,
    env,
    stop: async () => {
      await smtp.close();
      await dns.stop();
    },
  };
}

/**
 * The real stack in mx mode, with a test SMTP server as every recipient
 * domain's MX (through the test DNS server) and a compressed retry schedule.
 */
export async function startDeliveryHarness(
  env: Partial<Record<EnvName, string>> = {},
  apps?: StackOptions['apps'],
  appEnv?: StackOptions['appEnv'],
): Promise<DeliveryHarness> {
  const network = await startMailNetwork();
  const stack = await startStack({ apps, appEnv, env: Object.assign({}, network.env, env) });
  const db = new Client({ connectionString: stack.databaseUrl });
  await db.connect();
  return {
    stack,
    smtp: network.smtp,
    dns: network.dns,
    db,
    stop: async () => {
      await db.end();
      await stack.stop();
      await network.stop();
    },
  };
}

/** Makes `domain`'s mail go to the test SMTP server (MX → mx.<domain> → 127.0.0.1). */
export function routeMailTo(dns: TestDns, domain: string): void {
  dns.set(domain, 'MX', [{ exchange: `mx.${domain}`, priority: 10 }]);
  dns.set(`mx.${domain}`, 'A', '127.0.0.1');
}

export interface OutboxEvent {
  type: string;
  mode: string;
  data: Record<string, any>;
}

export async function eventsOf(db: Client, emailId: string): Promise<OutboxEvent[]> {
  const { rows } = await db.query(`SELECT type, mode, data FROM emails.outbox WHERE data->>'emailId' = $1 ORDER BY seq`, [emailId]);
  return rows;
}

/** Polls the email until its status is one of `statuses`; returns the full object. */
export async function emailReaching(stack: Stack, key: string, id: string, statuses: string[], timeoutMs = 15000): Promise<any> {
  let last: unknown;
  return eventually(async () => {
    const response = await stack.api.get(`/v1/emails/${id}`, { key });
    last = response.body;
    return statuses.includes(response.body?.status) ? response.body : undefined;
  }, timeoutMs).catch((error: Error) => {
    throw new Error(`${error.message}; the email was ${JSON.stringify(last)}`);
  });
}

/** One page of up to 100 emails listed under `status`: their ids, the statuses the page holds, its totalCount and its size. */
export async function listedUnderStatus(stack: Stack, key: string, status: string): Promise<{ ids: string[]; statuses: string[]; totalCount: number; size: number }> {
  const { body } = await stack.api.get(`/v1/emails?status=${status}&limit=100`, { key });
  const items: Array<{ id: string; status: string }> = body.data;
  return { ids: items.map((item) => item.id), statuses: [...new Set(items.map((item) => item.status))], totalCount: body.totalCount, size: items.length };
}

/**
 * Adds `name` through the API, publishes the records it hands out in the test
 * DNS, and verifies it: the domain a live email may be sent from. Returns its id and name.
 */
export function verifiedDomain(harness: DeliveryHarness, name: string): Promise<{ id: string; name: string }> {
  return verifiedDomainThrough(harness.stack.api, harness.dns, name);
}

/** verifiedDomain for a gateway and DNS server of a test's own (apps run as processes, say). */
export async function verifiedDomainThrough(api: ApiClient, dns: TestDns, name: string): Promise<{ id: string; name: string }> {
  const created = await api.post('/v1/domains', { name });
  if (created.status >= 300) throw new Error(`adding ${name}: ${created.status} ${JSON.stringify(created.body)}`);
  for (const record of created.body.dnsRecords as Array<{ type: 'TXT' | 'CNAME'; host: string; value: string }>) {
    dns.set(record.host === '@' ? name : `${record.host}.${name}`, record.type, record.value);
  }
  const verified = await api.post(`/v1/domains/${created.body.id}/verify`);
  if (verified.body?.status !== 'verified') throw new Error(`verifying ${name}: ${JSON.stringify(verified.body)}`);
  return { id: created.body.id, name: created.body.name };
}

/** A mailauth resolver over the test DNS server (which forwards the DKIM zone to the domains service's responder). */
export function testDnsResolver(dns: TestDns): (name: string, rrtype: string) => Promise<any> {
  const resolver = new Resolver({ timeout: 2000, tries: 1 });
  resolver.setServers([dns.address]);
  return (name, rrtype) => resolver.resolve(name, rrtype);
}

/**
 * Runs an emails app as its own OS process (from dist/) against the harness's database, NATS, DNS and SMTP
 * server, in mx mode, answering health checks on `opsPort`; `env` adds to or overrides that.
 */
export function startEmailsProcess(harness: DeliveryHarness, opsPort: number, env: Partial<Record<EnvName, string>> = {}): AppProcess {
  const config = harness.stack.configFor('emails');
  const base: Record<string, string> = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATABASE_URL: harness.stack.databaseUrl,
    NATS_URL: harness.stack.nats.url,
    HEALTH_HOST: '127.0.0.1',
    HEALTH_PORT: String(opsPort),
    DELIVERY_MODE: 'mx',
    DNS_SERVERS: config.DNS_SERVERS.join(','),
    SMTP_MX_PORT: String(config.SMTP_MX_PORT),
    DELIVERY_ALLOW_PRIVATE_MX: 'true',
    SMTP_HELO_NAME: 'mailroom.test',
    DELIVERY_POLL_MS: '50',
  };
  return startAppProcess('emails', Object.assign(base, env));
}

/** Resolves once the emails process started with `opsPort` answers ready. */
export async function untilEmailsProcessReady(opsPort: number, timeoutMs = PROCESS_READY_TIMEOUT_MS): Promise<void> {
  await eventually(async () => (await fetch(`http://127.0.0.1:${opsPort}/health/ready`).then((response) => response.status, () => 0)) === 200, timeoutMs);
}

/**
 * The delivery harness with the emails app left to the test, which runs it as a process of its own (to kill
 * it, say): `startEmails` starts it on the ops port given and resolves once it is ready. The gateway then
 * answers, and acme.test is a verified domain, with example.test routed to the test SMTP server.
 */
export async function startDeliveryHarnessBesideEmailsProcess(
  startEmails: (harness: DeliveryHarness, opsPort: number) => Promise<void>,
): Promise<{ harness: DeliveryHarness; opsPort: number }> {
  const harness = await startDeliveryHarness({}, ['keys', 'domains', 'webhook-dispatcher', 'gateway']);
  routeMailTo(harness.dns, 'example.test');
  const opsPort = await freeDnsPort();
  await startEmails(harness, opsPort);
  await eventually(async () => (await harness.stack.api.get('/health', { key: null })).status === 200, PROCESS_READY_TIMEOUT_MS);
  await verifiedDomain(harness, 'acme.test');
  return { harness, opsPort };
}
