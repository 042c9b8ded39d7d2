import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import type { MailroomConfig } from '@mailroom/config';

/**
 * The certificate authorities outbound TLS to recipient domains trusts (MX hosts under an enforced MTA-STS policy,
 * policy hosts, TLS report endpoints): Node's roots and TLS_EXTRA_CA_FILE's together, since a `ca` option replaces
 * the roots rather than adding to them.
 */
export function trustedCertificateAuthorities(config: MailroomConfig): string[] {
  return config.TLS_EXTRA_CA_FILE ? [...rootCertificates, readFileSync(config.TLS_EXTRA_CA_FILE, 'utf8')] : [...rootCertificates];
}
