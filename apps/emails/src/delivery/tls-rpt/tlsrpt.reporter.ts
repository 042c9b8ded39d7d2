import { hostname } from 'node:os';
import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { MailroomConfig } from '@mailroom/config';
import { parseEmailAddress } from '@mailroom/contracts';
import { MAILROOM_CONFIG, repeatEvery, RepeatingTask } from '@mailroom/runtime';
import { signMessage } from '../message/build-message';
import { parsedPrivateKey } from '../message/parsed-private-key';
import { policyHostLookup } from '../mta-sts/policy-host-lookup';
import { txtRecords } from '../mx/txt-records';
import { SenderIdentityCache } from '../sender-identity.cache';
import { DELIVERY_TRANSPORT, DeliveryTransport } from '../smtp/delivery-transport';
import { trustedCertificateAuthorities } from '../trusted-cas';
import { postReport, ReportPostSettings } from './post-report';
import { reportEmail } from './report-email';
import { tlsReportsSent } from './tlsrpt-metrics';
import { reportDestinations } from './tlsrpt-record';
import { buildReport, gzippedReport, ReportSubmitter } from './tlsrpt-report';
import { ClaimedReport, TlsrptRepository } from './tlsrpt.repository';

/** Waits before a report's second, third and fourth try; a fourth that fails drops it (the day's report is stale by then). */
export const REPORT_RETRY_DELAYS_MS = [10 * 60_000, 60 * 60_000, 4 * 60 * 60_000];

/** The last UTC day whose report is due at `nowMs`: the day before the one TLSRPT_SEND_DELAY into which we are. */
export function lastDueDay(nowMs: number, delayMs: number): string {
  return new Date(nowMs - delayMs - 86_400_000).toISOString().slice(0, 10);
}

/**
 * Sends each day's TLS reports (RFC 8460): every TLSRPT_CHECK_INTERVAL each worker makes a report due for each policy
 * domain with counts on a finished day (TLSRPT_SEND_DELAY after 00:00 UTC), claims the due ones (a claim per report
 * row, so replicas send each once), looks up the domain's `_smtp._tls` record, and sends the gzipped JSON to each rua:
 * POSTed to https: ones, mailed to mailto: ones through the delivery transport. A rua that did not take it is tried
 * again (REPORT_RETRY_DELAYS_MS) with the others left alone; after the last try the report is dropped.
 */
@Injectable()
export class TlsrptReporter implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(TlsrptReporter.name);
  private readonly submitter: ReportSubmitter;
  private readonly post: ReportPostSettings;
  private loop?: RepeatingTask;
  private stopped = false;
  private toldNoFrom = false;

  constructor(
    private readonly repository: TlsrptRepository,
    @Inject(DELIVERY_TRANSPORT) private readonly transport: DeliveryTransport,
    private readonly identities: SenderIdentityCache,
    @Inject(MAILROOM_CONFIG) private readonly config: MailroomConfig,
  ) {
    const helo = config.SMTP_HELO_NAME && !config.SMTP_HELO_NAME.startsWith('[') ? config.SMTP_HELO_NAME : hostname();
    this.submitter = {
      organizationName: config.TLSRPT_ORGANIZATION || helo,
      contactInfo: config.TLSRPT_CONTACT || config.TLSRPT_FROM || `postmaster@${helo}`,
      submitter: helo,
    };
    this.post = { ca: trustedCertificateAuthorities(config), lookup: policyHostLookup(config.DNS_SERVERS, config.DNS_TIMEOUT_MS, config.DELIVERY_ALLOW_PRIVATE_MX) };
  }

  onApplicationBootstrap(): void {
    this.loop = repeatEvery(this.config.TLSRPT_CHECK_INTERVAL, () =>
      this.sendDue().catch((error: Error) => this.logger.warn({ err: error.message }, 'sending TLS reports failed; the next look retries')),
    );
  }

  async beforeApplicationShutdown(): Promise<void> {
    // Also read between the reports of one run, so a shutdown does not wait for the rest of them.
    this.stopped = true;
    await this.loop?.stop();
  }

  /** Makes the finished days' reports due, and sends those due now that this process claims. */
  async sendDue(): Promise<void> {
    await this.repository.openReports(lastDueDay(Date.now(), this.config.TLSRPT_SEND_DELAY));
    for (const report of await this.repository.claimDue()) {
      if (this.stopped) return;
      await this.send(report);
    }
  }

  private async send(report: ClaimedReport): Promise<void> {
    const answer = await txtRecords(`_smtp._tls.${report.policyDomain}`, this.config.DNS_SERVERS, this.config.DNS_TIMEOUT_MS);
    const destinations = answer.kind === 'records' ? reportDestinations(answer.records) : null;
    if (answer.kind !== 'failed' && !destinations) return this.repository.finish(report, 'no-record', []);
    const sentTo = [...report.sentTo];
    let failed = answer.kind === 'failed';
    if (destinations) {
      const gzipped = gzippedReport(buildReport(report, await this.repository.countsOf(report.day, report.policyDomain), this.submitter));
      for (const url of destinations.https.filter((rua) => !sentTo.includes(rua))) {
        const posted = await postReport(url, gzipped, this.post);
        if (!posted.ok) this.logger.warn(`TLS report ${report.reportId} for ${report.policyDomain} not taken by ${url}: ${posted.reason}`);
        failed = this.counted(posted.ok, 'https', url, sentTo) || failed;
      }
      for (const address of destinations.mailto.filter((rua) => !sentTo.includes(`mailto:${rua}`))) {
        if (!this.config.TLSRPT_FROM) {
          this.skipMailto('TLSRPT_FROM is not set');
          continue;
        }
        const mailed = await this.mail(report, address, gzipped);
        if (mailed === 'unsigned') this.skipMailto(`TLSRPT_FROM's domain (${this.config.TLSRPT_FROM}) is not a verified sending domain, and receivers ignore reports without a DKIM signature (RFC 8460 §5.3)`);
        else failed = this.counted(mailed === 'sent', 'mailto', `mailto:${address}`, sentTo) || failed;
      }
    }
    if (!failed) return this.repository.finish(report, sentTo.length ? 'sent' : 'skipped', sentTo);
    const retryIn = REPORT_RETRY_DELAYS_MS[report.attempts - 1];
    if (retryIn !== undefined) return this.repository.retryLater(report, sentTo, retryIn);
    this.logger.warn(`TLS report ${report.reportId} for ${report.policyDomain} (${report.day}) dropped after ${report.attempts} tries`);
    tlsReportsSent.labels('dropped', destinations?.https.length ? 'https' : 'mailto').inc();
    return this.repository.finish(report, 'dropped', sentTo);
  }

  /** Counts one send; answers whether it failed. */
  private counted(ok: boolean, transport: 'https' | 'mailto', rua: string, sentTo: string[]): boolean {
    tlsReportsSent.labels(ok ? 'sent' : 'failed', transport).inc();
    if (ok) sentTo.push(rua);
    return !ok;
  }

  /**
   * Mails the report through the delivery transport, DKIM-signed for TLSRPT_FROM's domain; 'unsigned' when that
   * domain is not a verified sending domain, since a report without a signature is ignored (RFC 8460 §5.3).
   */
  private async mail(report: ClaimedReport, address: string, gzipped: Buffer): Promise<'sent' | 'failed' | 'unsigned'> {
    const from = this.config.TLSRPT_FROM;
    try {
      // The domain as sending domains are stored: lower-case punycode (an internationalized one included).
      const domain = parseEmailAddress(from)?.domain;
      const identity = domain ? await this.identities.get(domain) : null;
      if (identity?.status !== 'verified') return 'unsigned';
      const unsigned = reportEmail(report, this.submitter, from, address, gzipped);
      const raw = await signMessage(unsigned, { domainName: identity.name, keySelector: identity.dkim.selector, privateKey: parsedPrivateKey(identity.dkim) });
      const outcomes = await this.transport.deliver(from, [address], raw, { tlsReport: true });
      const outcome = outcomes.get(address.toLowerCase());
      if (outcome?.kind === 'accepted') return 'sent';
      this.logger.warn(`TLS report ${report.reportId} for ${report.policyDomain} not taken by ${address}: ${outcome?.reply ?? 'no outcome'}`);
      return 'failed';
    } catch (error) {
      this.logger.warn(`TLS report ${report.reportId} for ${report.policyDomain} not mailed to ${address}: ${(error as Error).message}`);
      return 'failed';
    }
  }

  /** A mailto: rua not sent to: counted each time, logged once per process. */
  private skipMailto(why: string): void {
    tlsReportsSent.labels('skipped', 'mailto').inc();
    if (this.toldNoFrom) return;
    this.toldNoFrom = true;
    this.logger.warn(`TLS reports to mailto: rua addresses are not sent: ${why}`);
  }
}
