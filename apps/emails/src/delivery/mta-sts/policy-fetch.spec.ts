import { readFileSync } from 'node:fs';
import { createServer, Server } from 'node:https';
import { AddressInfo, createServer as createNetServer } from 'node:net';
import { rootCertificates } from 'node:tls';
import { createTestCa, startTestDns, TestDns } from '@mailroom/testing';
import { fetchPolicyText, MAX_POLICY_BYTES, PolicyFetchSettings } from './policy-fetch';
import { policyHostLookup } from './policy-host-lookup';

const POLICY = 'version: STSv1\r\nmode: enforce\r\nmx: mx.good.test\r\nmax_age: 86400\r\n';

/** Against a real HTTPS server on loopback, its certificate from a test CA, its name found through a real DNS server. */
describe(fetchPolicyText.name, () => {
  const ca = createTestCa();
  const served = ['good', 'redirect', 'html', 'huge'];
  let server: Server;
  let dns: TestDns;
  let requests = 0;

  beforeAll(async () => {
    server = createServer(ca.issueServer(served.map((name) => `mta-sts.${name}.test`)), (request, response) => {
      requests += 1;
      const host = (request.headers.host ?? '').replace(/:\d+$/, '');
      if (request.url !== '/.well-known/mta-sts.txt') return void response.writeHead(404).end();
      if (host === 'mta-sts.redirect.test') return void response.writeHead(301, { location: 'https://elsewhere.test/' }).end();
      if (host === 'mta-sts.html.test') return void response.writeHead(200, { 'content-type': 'text/html' }).end(POLICY);
      if (host === 'mta-sts.huge.test') return void response.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(MAX_POLICY_BYTES + 1));
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(POLICY);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    dns = await startTestDns();
    for (const name of [...served, 'other']) dns.set(`mta-sts.${name}.test`, 'A', '127.0.0.1');
  });
  afterAll(async () => {
    await dns?.stop();
    await new Promise((resolve) => server?.close(resolve));
  });

  const settings = (overrides: Partial<PolicyFetchSettings> = {}): PolicyFetchSettings =>
    Object.assign(
      { port: (server.address() as AddressInfo).port, ca: [...rootCertificates, readFileSync(ca.caFile, 'utf8')], lookup: policyHostLookup([dns.address], 1000, true) },
      overrides,
    );

  it('reads the policy of a host whose certificate is valid for it', async () => {
    expect(await fetchPolicyText('good.test', settings())).toEqual({ ok: true, text: POLICY });
  });

  it('does not follow a redirect', async () => {
    expect(await fetchPolicyText('redirect.test', settings())).toEqual({ ok: false, reason: 'HTTP 301 (a redirect, which is not followed)', failure: 'sts-policy-fetch-error' });
  });

  it('refuses a body that is not text/plain, or larger than 64 KB', async () => {
    expect(await fetchPolicyText('html.test', settings())).toEqual({ ok: false, reason: "media type 'text/html', not text/plain", failure: 'sts-policy-invalid' });
    expect(await fetchPolicyText('huge.test', settings())).toEqual({ ok: false, reason: `a body over ${MAX_POLICY_BYTES} bytes`, failure: 'sts-policy-invalid' });
  });

  it('refuses a certificate for another name, or from a CA not trusted', async () => {
    expect(await fetchPolicyText('other.test', settings())).toMatchObject({ ok: false, reason: expect.stringContaining('ERR_TLS_CERT_ALTNAME_INVALID'), failure: 'sts-webpki-invalid' });
    expect(await fetchPolicyText('good.test', settings({ ca: [...rootCertificates] }))).toMatchObject({ ok: false, reason: expect.stringMatching(/^UNABLE_TO_VERIFY_LEAF_SIGNATURE|^SELF_SIGNED/), failure: 'sts-webpki-invalid' });
  });

  it('never connects to a policy host that resolves to a non-public address, unless DELIVERY_ALLOW_PRIVATE_MX', async () => {
    const before = requests;
    const refused = await fetchPolicyText('good.test', settings({ lookup: policyHostLookup([dns.address], 1000, false) }));
    expect(refused).toEqual({ ok: false, reason: 'EREFUSEDADDRESS: mta-sts.good.test resolves to a loopback address, which this server does not connect to', failure: 'sts-policy-fetch-error' });
    expect(requests).toBe(before);
  });

  it("fails when the policy host's name does not resolve within DNS_TIMEOUT_MS", async () => {
    dns.delay('mta-sts.slow.test', Infinity);
    expect(await fetchPolicyText('slow.test', settings({ lookup: policyHostLookup([dns.address], 200, true) }))).toMatchObject({ ok: false, reason: expect.stringContaining('timed out'), failure: 'sts-policy-fetch-error' });
  });

  it('gives up on a host that takes the connection and never answers', async () => {
    const silent = createNetServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as AddressInfo).port;
      expect(await fetchPolicyText('good.test', settings({ port, timeoutMs: 200 }))).toEqual({ ok: false, reason: 'no complete answer within 200 ms', failure: 'sts-policy-fetch-error' });
    } finally {
      silent.close();
    }
  });
});
