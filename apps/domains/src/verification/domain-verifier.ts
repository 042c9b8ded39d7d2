import { Injectable } from '@nestjs/common';
import { DomainEntity } from '../database/entities/domain.entity';
import { absoluteHost, dkimTarget } from '../domains/dns-records';
import { DomainSettings } from '../domains/domain-settings';
import { checkCnameChain } from './cname-chain';
import { checkDkim } from './dkim-check';
import { discoverDmarc } from './dmarc-discovery';
import { DnsLookup } from './dns-lookup';
import { checkSpf } from './spf-evaluator';
import { txtBehindCnames } from './txt-behind-cnames';
import { DomainCheck, RecordOutcome } from './verification-rules';

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
    // SPF and DMARC read TXT records through any CNAMEs; DKIM follows its CNAME chain itself.
    const txt = (host: string) => txtBehindCnames(host, dns);
    const [spf, dkim, dmarc] = await Promise.all([checkSpf(domain.name, this.settings.records.spfInclude, txt), this.checkDkim(dns, domain), discoverDmarc(domain.name, txt)]);
    return { spf, dkim, dmarc };
  }

  /** The DKIM record of one key of the domain, judged by the same rule whether it is the active key or a rotation's pending one. */
  checkDkimKey(domain: Pick<DomainEntity, 'id' | 'name'>, key: { selector: string; publicKey: string }): Promise<RecordOutcome> {
    return this.checkDkim(new DnsLookup(this.settings.dnsServers, this.settings.dnsTimeoutMs), { id: domain.id, name: domain.name, dkimSelector: key.selector, dkimPublicKey: key.publicKey });
  }

  private checkDkim(dns: DnsLookup, domain: Pick<DomainEntity, 'id' | 'name' | 'dkimSelector' | 'dkimPublicKey'>): Promise<RecordOutcome> {
    return checkDkim(absoluteHost(`${domain.dkimSelector}._domainkey`, domain.name), dkimTarget(domain, this.settings.dkimZone), domain.dkimPublicKey, dns);
  }

  /** A custom tracking domain verifies with a CNAME, or a chain of them, to the host of TRACKING_BASE_URL, where the gateway answers. */
  async checkTrackingDomain(domain: Pick<DomainEntity, 'trackingDomain'>): Promise<TrackingDomainCheck | null> {
    if (!domain.trackingDomain) return null;
    const startedAt = new Date();
    const dns = new DnsLookup(this.settings.dnsServers, this.settings.dnsTimeoutMs);
    const outcome = await checkCnameChain(domain.trackingDomain, this.settings.trackingDomain, (host) => dns.cname(host));
    return { name: domain.trackingDomain, outcome, startedAt };
  }
}
