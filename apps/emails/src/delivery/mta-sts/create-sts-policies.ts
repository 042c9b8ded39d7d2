import type { MailroomConfig } from '@mailroom/config';
import { TlsSessionRecorder } from '../tls-rpt/tls-session';
import { StsPolicyStore } from './mta-sts.repository';
import { fetchPolicyText } from './policy-fetch';
import { policyHostLookup } from './policy-host-lookup';
import { discoverStsPolicy } from './sts-discovery';
import { StsPolicies, StsPolicySource } from './sts-policies';

/** The MTA-STS policies mx delivery honours, over DNS_SERVERS and the policy cache; undefined with MTA_STS=off. */
export function createStsPolicies(config: MailroomConfig, store: StsPolicyStore, trustedCas: string[], tlsReports?: TlsSessionRecorder): StsPolicySource | undefined {
  if (config.MTA_STS === 'off') return undefined;
  const lookup = policyHostLookup(config.DNS_SERVERS, config.DNS_TIMEOUT_MS, config.DELIVERY_ALLOW_PRIVATE_MX);
  return new StsPolicies(store, {
    discover: (domain) => discoverStsPolicy(domain, config.DNS_SERVERS, config.DNS_TIMEOUT_MS),
    fetch: (domain) => fetchPolicyText(domain, { port: config.MTA_STS_HTTPS_PORT, ca: trustedCas, lookup }),
  }, { tlsReports });
}
