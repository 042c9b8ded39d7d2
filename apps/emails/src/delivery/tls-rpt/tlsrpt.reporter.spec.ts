import { generateKeyPairSync } from 'node:crypto';
import type { MailroomConfig } from '@mailroom/config';
import { txtRecords } from '../mx/txt-records';
import type { SenderIdentityCache } from '../sender-identity.cache';
import type { DeliveryTransport } from '../smtp/delivery-transport';
import { tlsReportsSent } from './tlsrpt-metrics';
import { ClaimedReport, TlsrptRepository } from './tlsrpt.repository';
import { REPORT_RETRY_DELAYS_MS, TlsrptReporter } from './tlsrpt.reporter';

jest.mock('../mx/txt-records', () => ({ txtRecords: jest.fn() }));

const REPORT: ClaimedReport = { day: '2026-11-27', policyDomain: 'example.org', reportId: 'r-1', attempts: 1, sentTo: [] };

const ACCEPTED = { kind: 'accepted', code: 250, reply: '250 2.0.0 OK' };
const PUT_OFF = { kind: 'temporary', code: 451, reply: '451 4.3.0 try later' };

/**
 * A reporter whose domain asks for reports by mail (at `rua`), with TLSRPT_FROM on a domain of the given status, a
 * claimed report `claimed`, and MX hosts that answer each address as `answers` says (accepted by default).
 */
function reporterFor(fromDomainStatus: 'verified' | 'pending' | null, options: { rua?: string; claimed?: ClaimedReport; answers?: Record<string, object> } = {}) {
  jest.mocked(txtRecords).mockResolvedValue({ kind: 'records', records: [[`v=TLSRPTv1; rua=${options.rua ?? 'mailto:tls@example.org'}`]] });
  const repository = {
    openReports: jest.fn().mockResolvedValue(undefined),
    claimDue: jest.fn().mockResolvedValue([options.claimed ?? REPORT]),
    countsOf: jest.fn().mockResolvedValue([]),
    finish: jest.fn().mockResolvedValue(undefined),
    retryLater: jest.fn().mockResolvedValue(undefined),
  };
  const transport = { deliver: jest.fn(async (_from: string, [to]: string[], _raw: Buffer, _options?: object) => new Map([[to, options.answers?.[to] ?? ACCEPTED]])) };
  const dkim = { selector: 'mailroom', privateKeyPem: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) };
  const identities = { get: jest.fn().mockResolvedValue(fromDomainStatus === null ? null : { name: 'acme.test', status: fromDomainStatus, dkim }) };
  const config = { TLSRPT_FROM: 'tls@acme.test', TLSRPT_ORGANIZATION: '', TLSRPT_CONTACT: '', SMTP_HELO_NAME: 'mx.acme.test', TLSRPT_SEND_DELAY: 3_600_000, TLS_EXTRA_CA_FILE: '', DNS_SERVERS: [], DNS_TIMEOUT_MS: 1000 } as unknown as MailroomConfig;
  const reporter = new TlsrptReporter(repository as unknown as TlsrptRepository, transport as unknown as DeliveryTransport, identities as unknown as SenderIdentityCache, config);
  return { reporter, repository, transport };
}

describe('TlsrptReporter, mailto: reports', () => {
  it.each([['pending' as const], [null]])('does not mail a report unsigned when TLSRPT_FROM\'s domain is %s: skipped, not retried', async (status) => {
    const skippedBefore = (await tlsReportsSent.get()).values.find((value) => value.labels.outcome === 'skipped')?.value ?? 0;
    const { reporter, repository, transport } = reporterFor(status);
    await reporter.sendDue();
    expect(transport.deliver).not.toHaveBeenCalled();
    expect(repository.retryLater).not.toHaveBeenCalled();
    expect(repository.finish).toHaveBeenCalledWith(REPORT, 'skipped', []);
    const skippedAfter = (await tlsReportsSent.get()).values.find((value) => value.labels.outcome === 'skipped')?.value ?? 0;
    expect(skippedAfter).toBe(skippedBefore + 1);
  });

  it('mails a report DKIM-signed when TLSRPT_FROM\'s domain is verified, as a TLS report (despite TLS failures, not counted), and closes it as sent', async () => {
    const { reporter, repository, transport } = reporterFor('verified');
    await reporter.sendDue();
    expect(transport.deliver).toHaveBeenCalledTimes(1);
    const [envelopeFrom, recipients, raw, options] = transport.deliver.mock.calls[0];
    expect([envelopeFrom, recipients, options]).toEqual(['tls@acme.test', ['tls@example.org'], { tlsReport: true }]);
    // The first header field, unfolded (RFC 5322 §2.2.3).
    const firstField = raw.toString().split(/\r\n(?![ \t])/)[0].replace(/\r\n[ \t]/g, ' ');
    expect(firstField).toMatch(/^DKIM-Signature: v=1; a=rsa-sha256; c=relaxed\/relaxed; d=acme\.test; +q=dns\/txt; s=mailroom;/);
    expect(repository.finish).toHaveBeenCalledWith(REPORT, 'sent', ['mailto:tls@example.org']);
  });

  it('tries a report the rua did not take again after the first retry delay, at that rua', async () => {
    const { reporter, repository } = reporterFor('verified', { answers: { 'tls@example.org': PUT_OFF } });
    await reporter.sendDue();
    expect(repository.finish).not.toHaveBeenCalled();
    expect(repository.retryLater).toHaveBeenCalledWith(REPORT, [], REPORT_RETRY_DELAYS_MS[0]);
  });

  it('sends a retried report only to the rua not reached yet, and closes it as sent once they all took it', async () => {
    const rua = 'mailto:a@example.org,mailto:b@example.org';
    const first = reporterFor('verified', { rua, answers: { 'b@example.org': PUT_OFF } });
    await first.reporter.sendDue();
    expect(first.repository.retryLater).toHaveBeenCalledWith(REPORT, ['mailto:a@example.org'], REPORT_RETRY_DELAYS_MS[0]);

    const retried = reporterFor('verified', { rua, claimed: Object.assign({}, REPORT, { attempts: 2, sentTo: ['mailto:a@example.org'] }) });
    await retried.reporter.sendDue();
    expect(retried.transport.deliver.mock.calls.map((call) => call[1])).toEqual([['b@example.org']]);
    expect(retried.repository.finish).toHaveBeenCalledWith(expect.objectContaining({ attempts: 2 }), 'sent', ['mailto:a@example.org', 'mailto:b@example.org']);
  });

  it('drops a report its rua did not take on the last try, keeping where it did go', async () => {
    const dropped = (async () => (await tlsReportsSent.get()).values.find((value) => value.labels.outcome === 'dropped')?.value ?? 0);
    const before = await dropped();
    const lastTry = Object.assign({}, REPORT, { attempts: REPORT_RETRY_DELAYS_MS.length + 1, sentTo: ['mailto:a@example.org'] });
    const { reporter, repository, transport } = reporterFor('verified', { rua: 'mailto:a@example.org,mailto:b@example.org', claimed: lastTry, answers: { 'b@example.org': PUT_OFF } });
    await reporter.sendDue();
    expect(transport.deliver.mock.calls.map((call) => call[1])).toEqual([['b@example.org']]);
    expect(repository.retryLater).not.toHaveBeenCalled();
    expect(repository.finish).toHaveBeenCalledWith(lastTry, 'dropped', ['mailto:a@example.org']);
    expect(await dropped()).toBe(before + 1);
  });
});
