import { Injectable } from '@nestjs/common';
import { DomainEntity } from '../database/entities/domain.entity';
import { absoluteHost, dkimTarget } from '../domains/dns-records';
import { DomainSettings } from '../domains/domain-settings';
import { DnsLookup } from './dns-lookup';
import { checkDkim, checkDmarc, checkSpf, DomainCheck } from './verification-rules';

/** Looks a domain's three records up in real DNS and judges each. Changes nothing. */
@Injectable()
export class DomainVerifier {
  constructor(private readonly settings: DomainSettings) {}

  async check(domain: Pick<DomainEntity, 'id' | 'name' | 'dkimSelector'>): Promise<DomainCheck> {
    const dns = new DnsLookup(this.settings.dnsServers, this.settings.dnsTimeoutMs);
    const [spf, dkim, dmarc] = await Promise.all([
      dns.txt(domain.name),
      dns.cname(absoluteHost(`${domain.dkimSelector}._domainkey`, domain.name)),
      dns.txt(absoluteHost('_dmarc', domain.name)),
    ]);
    return {
      spf: checkSpf(spf, this.settings.records.spfInclude),
      dkim: checkDkim(dkim, dkimTarget(domain, this.settings.dkimZone)),
      dmarc: checkDmarc(dmarc),
    };
  }
}
