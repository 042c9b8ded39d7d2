import { Injectable } from '@nestjs/common';
import { DomainEntity } from '../database/entities/domain.entity';
import { absoluteHost, dkimTarget } from '../domains/dns-records';
import { DomainSettings } from '../domains/domain-settings';
import { DnsLookup } from './dns-lookup';
import { checkCname, checkDkim, checkDkimKey, checkDmarc, checkSpf, DomainCheck, RecordOutcome } from './verification-rules';

/** The custom tracking domain that was looked up, and what was found; null when the domain has none. */
export interface TrackingDomainCheck {
  name: string;
  outcome: RecordOutcome;
  /** When the lookup started: an answer older than the row's last applied check is stale. */
  startedAt: Date;
}

/** Looks a domain's records up in real DNS and judges each. Changes nothing. */
@Injectable()
export class DomainVerifier {
  constructor(private readonly settings: DomainSettings) {}

  async check(domain: Pick<DomainEntity, 'id' | 'name' | 'dkimSelector' | 'dkimPublicKey'>): Promise<DomainCheck> {
    const dns = new DnsLookup(this.settings.dnsServers, this.settings.dnsTimeoutMs);
    const [spf, dkim, dmarc] = await Promise.all([dns.txt(domain.name), this.checkDkim(dns, domain), dns.txt(absoluteHost('_dmarc', domain.name))]);
    return { spf: checkSpf(spf, this.settings.records.spfInclude), dkim, dmarc: checkDmarc(dmarc) };
  }

  /**
   * The CNAME we issued; when it is not there as such, the key a verifier would reach at the selector name.
   * Both asked at once, so a check still takes one DNS_TIMEOUT_MS at most and a verify answers within RPC_TIMEOUT_MS.
   */
  private async checkDkim(dns: DnsLookup, domain: Pick<DomainEntity, 'id' | 'name' | 'dkimSelector' | 'dkimPublicKey'>): Promise<RecordOutcome> {
    const host = absoluteHost(`${domain.dkimSelector}._domainkey`, domain.name);
    const [cname, txt] = await Promise.all([dns.cname(host), dns.txt(host)]);
    return checkDkimKey(checkDkim(cname, dkimTarget(domain, this.settings.dkimZone)), txt, domain.dkimPublicKey);
  }

  /** A custom tracking domain verifies with a CNAME to the host of TRACKING_BASE_URL, where the gateway answers. */
  async checkTrackingDomain(domain: Pick<DomainEntity, 'trackingDomain'>): Promise<TrackingDomainCheck | null> {
    if (!domain.trackingDomain) return null;
    const startedAt = new Date();
    const dns = new DnsLookup(this.settings.dnsServers, this.settings.dnsTimeoutMs);
    return { name: domain.trackingDomain, outcome: checkCname(await dns.cname(domain.trackingDomain), this.settings.trackingDomain), startedAt };
  }
}
