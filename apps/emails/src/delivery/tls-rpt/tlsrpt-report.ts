import { gzipSync } from 'node:zlib';
import { CountedSessions } from './tls-session-counts';
import { ReportedPolicy } from './tls-session';

/** Who sends the reports: the report's organization-name and contact-info, and the submitter its mail names. */
export interface ReportSubmitter {
  organizationName: string;
  contactInfo: string;
  /** A domain name: the sending MTA's (SMTP_HELO_NAME, or the hostname). */
  submitter: string;
}

/** One report to build: a policy domain's day. */
export interface ReportOf {
  reportId: string;
  /** YYYY-MM-DD, UTC. */
  day: string;
  policyDomain: string;
}

/** RFC 8460 §4.4's JSON, as this code writes it. */
export interface TlsReport {
  'organization-name': string;
  'date-range': { 'start-datetime': string; 'end-datetime': string };
  'contact-info': string;
  'report-id': string;
  policies: Array<{
    policy: { 'policy-type': ReportedPolicy['type']; 'policy-string'?: string[]; 'policy-domain': string; 'mx-host'?: string[] };
    summary: { 'total-successful-session-count': number; 'total-failure-session-count': number };
    'failure-details'?: Array<{ 'result-type': string; 'receiving-mx-hostname'?: string; 'receiving-ip'?: string; 'failed-session-count': number }>;
  }>;
}

/**
 * The report of a policy domain's day (RFC 8460 §4.4) from its counts: one entry under `policies` per policy that
 * applied that day (a policy changed during the day gives two), each with its successful and failed sessions and
 * the failures by result type, MX host and address. The day is the UTC one, 00:00:00 to 23:59:59 as in the RFC's
 * example. sending-mta-ip is left out: behind NAT or with several addresses, the process cannot say which address a
 * receiver saw.
 */
export function buildReport(of: ReportOf, counts: CountedSessions[], by: ReportSubmitter): TlsReport {
  const policies = new Map<string, TlsReport['policies'][number]>();
  for (const row of counts) {
    const key = JSON.stringify(row.policy);
    let entry = policies.get(key);
    if (!entry) {
      const policy =
        row.policy.type === 'sts'
          ? { 'policy-type': row.policy.type, 'policy-string': row.policy.string, 'policy-domain': of.policyDomain, 'mx-host': row.policy.mxHost }
          : { 'policy-type': row.policy.type, 'policy-domain': of.policyDomain };
      entry = { policy, summary: { 'total-successful-session-count': 0, 'total-failure-session-count': 0 } };
      policies.set(key, entry);
    }
    if (row.result === 'success') {
      entry.summary['total-successful-session-count'] += row.sessions;
      continue;
    }
    entry.summary['total-failure-session-count'] += row.sessions;
    const detail: NonNullable<TlsReport['policies'][number]['failure-details']>[number] = { 'result-type': row.result, 'failed-session-count': row.sessions };
    if (row.mxHostname) detail['receiving-mx-hostname'] = row.mxHostname;
    if (row.ip) detail['receiving-ip'] = row.ip;
    (entry['failure-details'] ??= []).push(detail);
  }
  return {
    'organization-name': by.organizationName,
    'date-range': { 'start-datetime': `${of.day}T00:00:00Z`, 'end-datetime': `${of.day}T23:59:59Z` },
    'contact-info': by.contactInfo,
    'report-id': of.reportId,
    policies: [...policies.values()],
  };
}

/** The report as it is sent, to https: and mailto: alike: its JSON, gzipped (RFC 8460 §5.1, application/tlsrpt+gzip). */
export function gzippedReport(report: TlsReport): Buffer {
  return gzipSync(JSON.stringify(report));
}

/**
 * RFC 8460 §5.3's file name: `sender!policy-domain!begin-timestamp!end-timestamp!unique-id.json.gz`, the timestamps
 * in seconds since the epoch and the unique id the report id's letters and digits.
 */
export function reportFileName(of: ReportOf, submitter: string): string {
  const begin = Date.parse(`${of.day}T00:00:00Z`) / 1000;
  const end = begin + 86_399;
  return `${submitter}!${of.policyDomain}!${begin}!${end}!${of.reportId.replace(/[^A-Za-z0-9]/g, '')}.json.gz`;
}
