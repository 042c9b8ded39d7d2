import { gunzipSync } from 'node:zlib';
import { TlsSessionCounts } from './tls-session-counts';
import { buildReport, gzippedReport, reportFileName } from './tlsrpt-report';

const STS = { type: 'sts' as const, string: ['version: STSv1', 'mode: enforce', 'mx: *.mail.company-y.example', 'max_age: 86400'], mxHost: ['*.mail.company-y.example'] };
const by = { organizationName: 'Company-X', contactInfo: 'sts-reporting@company-x.example', submitter: 'mx.company-x.example' };
const of = { reportId: '5065427c-23d3-47ca-b6e0-946ea0e8c4be', day: '2016-04-01', policyDomain: 'company-y.example' };

describe('TLS report counts and JSON', () => {
  it('adds up sessions per policy and result, and hands back what it could not store', () => {
    const counts = new TlsSessionCounts(() => new Date('2016-04-01T12:00:00Z'));
    for (let i = 0; i < 3; i++) counts.record('company-y.example', STS, { ok: true });
    counts.record('company-y.example', STS, { ok: false, resultType: 'certificate-expired', mxHostname: 'mx1.mail.company-y.example', ip: '2001:db8:abcd:0012::1' });
    const taken = counts.take();
    expect(taken).toEqual([
      { day: '2016-04-01', policyDomain: 'company-y.example', policy: STS, result: 'success', mxHostname: '', ip: '', sessions: 3 },
      { day: '2016-04-01', policyDomain: 'company-y.example', policy: STS, result: 'certificate-expired', mxHostname: 'mx1.mail.company-y.example', ip: '2001:db8:abcd:0012::1', sessions: 1 },
    ]);
    expect(counts.take()).toEqual([]);
    counts.putBack(taken);
    counts.record('company-y.example', STS, { ok: true });
    expect(counts.take().map((row) => row.sessions)).toEqual([4, 1]);
  });

  it("writes RFC 8460 §4.4's example report from its counts", () => {
    const counts = new TlsSessionCounts(() => new Date('2016-04-01T12:00:00Z'));
    for (let i = 0; i < 5326; i++) counts.record('company-y.example', STS, { ok: true });
    for (let i = 0; i < 200; i++) counts.record('company-y.example', STS, { ok: false, resultType: 'certificate-expired', mxHostname: 'mx1.mail.company-y.example', ip: '2001:db8:abcd:0012::1' });
    for (let i = 0; i < 3; i++) counts.record('company-y.example', STS, { ok: false, resultType: 'starttls-not-supported', mxHostname: 'mx2.mail.company-y.example', ip: '2001:db8:abcd:0013::1' });
    counts.record('company-y.example', STS, { ok: false, resultType: 'validation-failure', mxHostname: 'mx3.mail.company-y.example', ip: '' });
    expect(buildReport(of, counts.take(), by)).toEqual({
      'organization-name': 'Company-X',
      'date-range': { 'start-datetime': '2016-04-01T00:00:00Z', 'end-datetime': '2016-04-01T23:59:59Z' },
      'contact-info': 'sts-reporting@company-x.example',
      'report-id': '5065427c-23d3-47ca-b6e0-946ea0e8c4be',
      policies: [
        {
          policy: { 'policy-type': 'sts', 'policy-string': STS.string, 'policy-domain': 'company-y.example', 'mx-host': ['*.mail.company-y.example'] },
          summary: { 'total-successful-session-count': 5326, 'total-failure-session-count': 204 },
          'failure-details': [
            { 'result-type': 'certificate-expired', 'receiving-mx-hostname': 'mx1.mail.company-y.example', 'receiving-ip': '2001:db8:abcd:0012::1', 'failed-session-count': 200 },
            { 'result-type': 'starttls-not-supported', 'receiving-mx-hostname': 'mx2.mail.company-y.example', 'receiving-ip': '2001:db8:abcd:0013::1', 'failed-session-count': 3 },
            { 'result-type': 'validation-failure', 'receiving-mx-hostname': 'mx3.mail.company-y.example', 'failed-session-count': 1 },
          ],
        },
      ],
    });
  });

  it('gives each policy of the day its own entry, no-policy-found without policy-string or mx-host, no failure-details without failures', () => {
    const counts = new TlsSessionCounts(() => new Date('2016-04-01T12:00:00Z'));
    counts.record('company-y.example', STS, { ok: true });
    counts.record('company-y.example', { type: 'no-policy-found' }, { ok: true });
    const report = buildReport(of, counts.take(), by);
    expect(report.policies).toEqual([
      expect.objectContaining({ policy: expect.objectContaining({ 'policy-type': 'sts' }) }),
      { policy: { 'policy-type': 'no-policy-found', 'policy-domain': 'company-y.example' }, summary: { 'total-successful-session-count': 1, 'total-failure-session-count': 0 } },
    ]);
    expect(JSON.parse(gunzipSync(gzippedReport(report)).toString('utf8'))).toEqual(report);
  });

  it('names the attachment as RFC 8460 §5.3 does', () => {
    expect(reportFileName(of, 'mx.company-x.example')).toBe('mx.company-x.example!company-y.example!1459468800!1459555199!5065427c23d347cab6e0946ea0e8c4be.json.gz');
  });
});
