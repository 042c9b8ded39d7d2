import { createServer, Server } from 'node:https';
import { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { AppProcess, createTestCa, eventually, freeDnsPort, startTestSmtp, TestSmtp } from '@mailroom/testing';
import { scrapeMetrics } from '../../../scripts/prometheus-text';
import { DeliveryHarness, emailReaching, routeMailTo, startDeliveryHarness, startEmailsProcess, untilEmailsProcessReady, verifiedDomain } from './support/delivery-harness';

const policyLines = (mx: string) => ['version: STSv1', 'mode: enforce', `mx: ${mx}`, 'max_age: 86400'];

/** How both emails processes (the stack's and the second replica) report. */
const REPORTING_ENV = { TLSRPT_FROM: 'tls-reports@acme.test', TLSRPT_ORGANIZATION: 'Acme Mail', TLSRPT_CONTACT: 'ops@acme.test', TLSRPT_CHECK_INTERVAL: '200ms' };

/** A report the https receiver took: where it was POSTed, its Content-Type, and its JSON. */
interface Received {
  path: string;
  contentType: string;
  report: any;
}

/**
 * TLS reporting (RFC 8460) in mx mode: deliveries to domains with and without an enforced MTA-STS policy, to MX hosts
 * that offer TLS with a valid certificate, with a certificate for another name, and without STARTTLS (real SMTP
 * servers on loopback, certificates from a test CA, a real DNS server), are counted; once their day is over, each
 * domain that publishes a `_smtp._tls` record gets one report at its rua: a real HTTPS receiver, or its MX by mail.
 * A second emails process competes for the reports.
 */
describe('TLS reports (RFC 8460)', () => {
  const ca = createTestCa();
  const policies = new Map<string, string>();
  const received: Received[] = [];
  let https: Server;
  let harness: DeliveryHarness;
  let verified: TestSmtp;
  let plaintextOnly: TestSmtp;
  let wrongName: TestSmtp;
  let replica: AppProcess | undefined;
  let ruaBase: string;

  const enforce = (domain: string, address: string) => {
    harness.dns.set(domain, 'MX', [{ exchange: `mx.${domain}`, priority: 10 }]);
    harness.dns.set(`mx.${domain}`, 'A', address);
    harness.dns.set(`_mta-sts.${domain}`, 'TXT', 'v=STSv1; id=v1;');
    harness.dns.set(`mta-sts.${domain}`, 'A', '127.0.0.1');
    policies.set(`mta-sts.${domain}`, [...policyLines(`mx.${domain}`), ''].join('\r\n'));
  };
  const reportsTo = (domain: string, rua: string) => harness.dns.set(`_smtp._tls.${domain}`, 'TXT', `v=TLSRPTv1; rua=${rua}`);

  beforeAll(async () => {
    const names = ['enforced.test', 'wrong-name.test', 'no-starttls.test', 'silent.test', 'reports-mail.test', 'unfetchable.test'].map((name) => `mta-sts.${name}`);
    https = createServer(ca.issueServer([...names, 'reports.test']), (request, response) => {
      const host = (request.headers.host ?? '').replace(/:\d+$/, '');
      if (host === 'reports.test' && request.method === 'POST') {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          received.push({ path: request.url ?? '', contentType: request.headers['content-type'] ?? '', report: JSON.parse(gunzipSync(Buffer.concat(chunks)).toString('utf8')) });
          response.writeHead(201).end();
        });
        return;
      }
      const text = policies.get(host);
      if (request.url !== '/.well-known/mta-sts.txt' || text === undefined) return void response.writeHead(404).end();
      response.writeHead(200, { 'content-type': 'text/plain' }).end(text);
    });
    await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
    const httpsPort = String((https.address() as AddressInfo).port);
    ruaBase = `https://reports.test:${httpsPort}/tlsrpt`;
    harness = await startDeliveryHarness(Object.assign({ TLS_EXTRA_CA_FILE: ca.caFile, MTA_STS_HTTPS_PORT: httpsPort, TLSRPT_FLUSH_INTERVAL: '100ms' }, REPORTING_ENV));
    const port = harness.smtp.port;
    verified = await startTestSmtp({ host: '127.0.0.2', port, tls: ca.issueServer(['mx.enforced.test', 'mx.silent.test']) });
    plaintextOnly = await startTestSmtp({ host: '127.0.0.3', port, disableStartTls: true });
    wrongName = await startTestSmtp({ host: '127.0.0.4', port, tls: ca.issueServer(['mx.someone-else.test']) });
    harness.dns.set('reports.test', 'A', '127.0.0.1');
    enforce('enforced.test', '127.0.0.2');
    enforce('wrong-name.test', '127.0.0.4');
    enforce('no-starttls.test', '127.0.0.3');
    enforce('silent.test', '127.0.0.2');
    routeMailTo(harness.dns, 'no-policy.test');
    // The mailto: rua's domain enforces a policy its MX (plaintext only) fails: reports must reach it all the same.
    enforce('reports-mail.test', '127.0.0.3');
    // Announces a policy its policy host does not serve (404): delivered as without one, the fetch failure reported.
    routeMailTo(harness.dns, 'unfetchable.test');
    harness.dns.set('_mta-sts.unfetchable.test', 'TXT', 'v=STSv1; id=v1;');
    harness.dns.set('mta-sts.unfetchable.test', 'A', '127.0.0.1');
    reportsTo('enforced.test', `${ruaBase}/enforced`);
    reportsTo('wrong-name.test', `${ruaBase}/wrong-name`);
    reportsTo('no-policy.test', `${ruaBase}/no-policy`);
    reportsTo('no-starttls.test', 'mailto:tls@reports-mail.test');
    reportsTo('unfetchable.test', `${ruaBase}/unfetchable`);
    await verifiedDomain(harness, 'acme.test');
  });
  afterAll(async () => {
    replica?.child.kill('SIGKILL');
    await replica?.exited;
    for (const server of [verified, plaintextOnly, wrongName]) await server?.close();
    await harness?.stop();
    await new Promise((resolve) => https?.close(resolve));
  });

  const send = async (to: string) => {
    const response = await harness.stack.api.post('/v1/emails', { from: 'hi@acme.test', to, subject: 'Hello', text: 'Hi' });
    expect(response.status).toBe(202);
    return response.body.id as string;
  };
  const sessions = async (domain: string) => {
    const { rows } = await harness.db.query(`SELECT result, sum(sessions)::int AS n FROM emails.tlsrpt_counts WHERE policy_domain = $1 GROUP BY result ORDER BY result`, [domain]);
    return Object.fromEntries(rows.map((row) => [row.result, row.n]));
  };

  it('counts the sessions of each delivery, and sends each domain with a TLSRPTv1 record one report of its finished day', async () => {
    await emailReaching(harness.stack, harness.stack.rootKey, await send('ann@enforced.test'), ['delivered']);
    await emailReaching(harness.stack, harness.stack.rootKey, await send('bob@enforced.test'), ['delivered']);
    await emailReaching(harness.stack, harness.stack.rootKey, await send('cat@no-policy.test'), ['delivered']);
    await emailReaching(harness.stack, harness.stack.rootKey, await send('sil@silent.test'), ['delivered']);
    await emailReaching(harness.stack, harness.stack.rootKey, await send('uma@unfetchable.test'), ['delivered']);
    // Held back by the enforced policy on each of its four attempts (the first and three retries), then failed.
    await emailReaching(harness.stack, harness.stack.rootKey, await send('dan@wrong-name.test'), ['failed']);
    await emailReaching(harness.stack, harness.stack.rootKey, await send('eve@no-starttls.test'), ['failed']);
    // Caches reports-mail.test's policy, which holds ordinary mail back from its plaintext-only MX.
    await emailReaching(harness.stack, harness.stack.rootKey, await send('fay@reports-mail.test'), ['failed']);
    // The last attempts' sessions reach the table with the next flush.
    await eventually(
      async () =>
        (await sessions('wrong-name.test'))['certificate-host-mismatch'] === 4 &&
        (await sessions('no-starttls.test'))['starttls-not-supported'] === 4 &&
        (await sessions('reports-mail.test'))['starttls-not-supported'] === 4,
      5000,
    );
    expect(await sessions('wrong-name.test')).toEqual({ 'certificate-host-mismatch': 4 });
    expect(await sessions('enforced.test')).toEqual({ success: 2 });
    expect(await sessions('no-policy.test')).toEqual({ success: 1 });
    expect(await sessions('no-starttls.test')).toEqual({ 'starttls-not-supported': 4 });
    expect(await sessions('reports-mail.test')).toEqual({ 'starttls-not-supported': 4 });
    expect(await sessions('unfetchable.test')).toEqual({ 'sts-policy-fetch-error': 1, success: 1 });
    const metrics = await scrapeMetrics(harness.stack.opsUrl('emails'));
    expect(metrics.value('mailroom_tlsrpt_sessions_total', { result: 'certificate-host-mismatch' })).toBe(4);

    // A second replica competes for the reports; then the counts' day is made the day before yesterday, whose
    // reports are due whatever TLSRPT_SEND_DELAY (at most 12 hours) and the time of day.
    const opsPort = await freeDnsPort();
    replica = startEmailsProcess(harness, opsPort, Object.assign({ TLS_EXTRA_CA_FILE: ca.caFile, MTA_STS_HTTPS_PORT: String((https.address() as AddressInfo).port) }, REPORTING_ENV));
    await untilEmailsProcessReady(opsPort);
    const { rows: days } = await harness.db.query(`UPDATE emails.tlsrpt_counts SET day = day - 2 RETURNING to_char(day, 'YYYY-MM-DD') AS day`);
    const day = days[0].day as string;

    await eventually(async () => {
      const { rows } = await harness.db.query(`SELECT count(*)::int AS n FROM emails.tlsrpt_reports WHERE state = 'due'`);
      return rows[0].n === 0 && received.length >= 4 && plaintextOnly.messagesFor('tls@reports-mail.test').length >= 1;
    }, 20_000).catch(async (error: Error) => {
      const { rows } = await harness.db.query(`SELECT policy_domain, state, attempts, sent_to FROM emails.tlsrpt_reports ORDER BY policy_domain`);
      throw new Error(`${error.message}; reports ${JSON.stringify(rows)}, ${received.length} received over https;`);
    });
    const { rows: reports } = await harness.db.query(`SELECT policy_domain, state, sent_to FROM emails.tlsrpt_reports ORDER BY policy_domain`);
    expect(reports).toEqual([
      { policy_domain: 'enforced.test', state: 'sent', sent_to: [`${ruaBase}/enforced`] },
      { policy_domain: 'no-policy.test', state: 'sent', sent_to: [`${ruaBase}/no-policy`] },
      { policy_domain: 'no-starttls.test', state: 'sent', sent_to: ['mailto:tls@reports-mail.test'] },
      { policy_domain: 'reports-mail.test', state: 'no-record', sent_to: [] },
      { policy_domain: 'silent.test', state: 'no-record', sent_to: [] },
      { policy_domain: 'unfetchable.test', state: 'sent', sent_to: [`${ruaBase}/unfetchable`] },
      { policy_domain: 'wrong-name.test', state: 'sent', sent_to: [`${ruaBase}/wrong-name`] },
    ]);
    // One report per domain, though two processes looked for them every 200 ms.
    expect(received.map((entry) => entry.path).sort()).toEqual(['/tlsrpt/enforced', '/tlsrpt/no-policy', '/tlsrpt/unfetchable', '/tlsrpt/wrong-name']);
    // The report mail went despite the policy (RFC 8460 §3), in plaintext, and its session counted in no report: the
    // stack's process counted the 4 + 4 failed ordinary sessions only, the replica none (its report was sent before the
    // state above left 'due').
    expect(plaintextOnly.messagesFor('tls@reports-mail.test').map((message) => message.secure)).toEqual([false]);
    const starttlsFailures = async (opsUrl: string) =>
      (await scrapeMetrics(opsUrl)).find('mailroom_tlsrpt_sessions_total', { result: 'starttls-not-supported' }).reduce((sum, sample) => sum + sample.value, 0);
    expect((await starttlsFailures(harness.stack.opsUrl('emails'))) + (await starttlsFailures(`http://127.0.0.1:${opsPort}`))).toBe(8);
    expect(received.every((entry) => entry.contentType === 'application/tlsrpt+gzip')).toBe(true);

    const reportAt = (path: string) => received.find((entry) => entry.path === path)!.report;
    const enforced = reportAt('/tlsrpt/enforced');
    expect(enforced).toEqual({
      'organization-name': 'Acme Mail',
      'date-range': { 'start-datetime': `${day}T00:00:00Z`, 'end-datetime': `${day}T23:59:59Z` },
      'contact-info': 'ops@acme.test',
      'report-id': expect.any(String),
      policies: [
        {
          policy: { 'policy-type': 'sts', 'policy-string': policyLines('mx.enforced.test'), 'policy-domain': 'enforced.test', 'mx-host': ['mx.enforced.test'] },
          summary: { 'total-successful-session-count': 2, 'total-failure-session-count': 0 },
        },
      ],
    });
    expect(reportAt('/tlsrpt/wrong-name').policies).toEqual([
      {
        policy: { 'policy-type': 'sts', 'policy-string': policyLines('mx.wrong-name.test'), 'policy-domain': 'wrong-name.test', 'mx-host': ['mx.wrong-name.test'] },
        summary: { 'total-successful-session-count': 0, 'total-failure-session-count': 4 },
        'failure-details': [{ 'result-type': 'certificate-host-mismatch', 'receiving-mx-hostname': 'mx.wrong-name.test', 'receiving-ip': '127.0.0.4', 'failed-session-count': 4 }],
      },
    ]);
    expect(reportAt('/tlsrpt/no-policy').policies).toEqual([
      { policy: { 'policy-type': 'no-policy-found', 'policy-domain': 'no-policy.test' }, summary: { 'total-successful-session-count': 1, 'total-failure-session-count': 0 } },
    ]);
    const byType = (entries: any[]) => [...entries].sort((a, b) => a.policy['policy-type'].localeCompare(b.policy['policy-type']));
    expect(byType(reportAt('/tlsrpt/unfetchable').policies)).toEqual([
      { policy: { 'policy-type': 'no-policy-found', 'policy-domain': 'unfetchable.test' }, summary: { 'total-successful-session-count': 1, 'total-failure-session-count': 0 } },
      {
        policy: { 'policy-type': 'sts', 'policy-string': [], 'policy-domain': 'unfetchable.test', 'mx-host': [] },
        summary: { 'total-successful-session-count': 0, 'total-failure-session-count': 1 },
        'failure-details': [{ 'result-type': 'sts-policy-fetch-error', 'failed-session-count': 1 }],
      },
    ]);
    expect(new Set(received.map((entry) => entry.report['report-id'])).size).toBe(4);
  });

  it('mails a mailto: rua a multipart/report with the gzipped JSON, DKIM-signed for the verified From domain', async () => {
    const [message] = plaintextOnly.messagesFor('tls@reports-mail.test');
    expect(message.mailFrom).toBe('tls-reports@acme.test');
    // The header, its folded fields unfolded (RFC 5322 §2.2.3).
    const head = message.raw.toString('latin1').split('\r\n\r\n')[0].replace(/\r\n(?=[ \t])/g, '');
    expect(head).toMatch(/^DKIM-Signature: .*d=acme\.test;/m);
    expect(head).toMatch(/^Content-Type: multipart\/report; report-type="?tlsrpt"?;/im);
    const { rows } = await harness.db.query(`SELECT report_id FROM emails.tlsrpt_reports WHERE policy_domain = 'no-starttls.test'`);
    const reportId = rows[0].report_id as string;
    expect(head).toContain(`\r\nSubject: Report Domain: no-starttls.test Submitter: mailroom.test Report-ID: <${reportId}>\r\n`);
    expect(head).toMatch(/^TLS-Report-Domain: no-starttls\.test$/im);
    expect(head).toMatch(/^TLS-Report-Submitter: mailroom\.test$/im);
    // The attachment part: its header, then its base64 body up to the next boundary.
    const part = /Content-Type: application\/tlsrpt\+gzip;[^]*?\r\n\r\n([A-Za-z0-9+/=\r\n]+)\r\n--/.exec(message.raw.toString('latin1'));
    expect(part).not.toBeNull();
    const partHead = part![0].split('\r\n\r\n')[0];
    expect(partHead).toContain('Content-Disposition: attachment');
    // Named as RFC 8460 §5.3 says (the Content-Disposition filename carries the same name, split as RFC 2231 allows).
    expect(partHead).toMatch(new RegExp(`name="?mailroom\\.test!no-starttls\\.test!\\d+!\\d+!${reportId.replace(/-/g, '')}\\.json\\.gz"?`));
    const attachment = { content: Buffer.from(part![1].replace(/\r\n/g, ''), 'base64') };
    const report = JSON.parse(gunzipSync(attachment.content).toString('utf8'));
    expect(report.policies).toEqual([
      {
        policy: { 'policy-type': 'sts', 'policy-string': policyLines('mx.no-starttls.test'), 'policy-domain': 'no-starttls.test', 'mx-host': ['mx.no-starttls.test'] },
        summary: { 'total-successful-session-count': 0, 'total-failure-session-count': 4 },
        'failure-details': [{ 'result-type': 'starttls-not-supported', 'receiving-mx-hostname': 'mx.no-starttls.test', 'receiving-ip': '127.0.0.3', 'failed-session-count': 4 }],
      },
    ]);
  });
});
