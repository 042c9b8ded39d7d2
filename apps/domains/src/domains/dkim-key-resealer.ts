import { Injectable } from '@nestjs/common';
import { SecretResealer } from '@mailroom/runtime';
import { DomainSettings } from './domain-settings';
import { DomainsRepository } from './domains.repository';

/**
 * After ENCRYPTION_KEY changed, seals each domain's DKIM private key again under it, so ENCRYPTION_KEY_PREVIOUS
 * can go from this service and from the emails service it sends the keys to (see SecretResealer).
 */
@Injectable()
export class DkimKeyResealer extends SecretResealer {
  constructor(domains: DomainsRepository, { secretBox }: DomainSettings) {
    super({ kind: 'dkim_key', what: 'DKIM private keys', box: secretBox, reseal: (stopped) => domains.resealDkimKeys(secretBox, stopped) });
  }
}
