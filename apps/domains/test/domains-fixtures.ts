import { freeDnsPort, startStack, startTestDns, Stack, TestDns } from '@mailroom/testing';
import type { EnvName } from '@mailroom/config';

export const DKIM_ZONE = 'dkim.mailroom.test';
export const SPF_INCLUDE = 'spf.mailroom.test';

export interface DomainsHarness {
  stack: Stack;
  dns: TestDns;
  /** host:port of the domains service's own DKIM DNS server. */
  dkimDns: string;
}

type App = 'keys' | 'domains' | 'emails' | 'webhook-dispatcher' | 'gateway';

/** The stack with a loopback DNS server as DNS_SERVERS and the DKIM responder on a free port. */
export async function startDomainsHarness(env: Partial<Record<EnvName, string>> = {}, apps: App[] = ['keys', 'domains', 'gateway']): Promise<DomainsHarness> {
  const dns = await startTestDns();
  const port = await freeDnsPort();
  const stack = await startStack({
    apps,
    env: {
      DNS_SERVERS: dns.address,
      DNS_TIMEOUT_MS: '400',
      DKIM_ZONE,
      SPF_INCLUDE,
      DKIM_DNS_BIND: `127.0.0.1:${port}`,
      TRACKING_BASE_URL: 'https://track.mailroom.test',
      // POST /v1/domains generates a 2048-bit RSA key while the gateway waits. Its random prime search has a long
      // tail, and on a loaded 2-core CI machine it has run past the default 5 s, failing a setup with a 503.
      RPC_TIMEOUT_MS: '20000',
      ...env,
    },
  });
  return { stack, dns, dkimDns: `127.0.0.1:${port}` };
}

export async function stopDomainsHarness(harness: DomainsHarness | undefined): Promise<void> {
  await harness?.stack.stop();
  await harness?.dns.stop();
}

interface PublishedRecord {
  type: string;
  host: string;
  value: string;
  purpose: 'spf' | 'dkim' | 'dmarc';
}

/** Publishes a domain's records in the test DNS server, all or only some. */
export function publish(dns: TestDns, name: string, records: PublishedRecord[], purposes: Array<PublishedRecord['purpose']> = ['spf', 'dkim', 'dmarc']): void {
  for (const record of records) {
    if (!purposes.includes(record.purpose)) continue;
    const host = record.host === '@' ? name : `${record.host}.${name}`;
    if (record.type === 'CNAME') dns.set(host, 'CNAME', record.value);
    else dns.set(host, 'TXT', [record.value]);
  }
}

let counter = 0;
/** A fresh domain name per test, so tests do not share state. */
export function uniqueDomain(prefix = 'example'): string {
  counter += 1;
  return `${prefix}-${process.pid}-${counter}-${Date.now().toString(36)}.com`;
}
