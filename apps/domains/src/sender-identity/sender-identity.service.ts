import { Injectable } from '@nestjs/common';
import { normalizeDomainName, SenderIdentityPayload, SenderIdentityReply } from '@mailroom/contracts';
import { DomainSettings } from '../domains/domain-settings';
import { DomainsRepository } from '../domains/domains.repository';
import { trackingBaseUrlFor } from '../tracking-domain/tracking-domain';

/**
 * What the emails service needs to send as a domain: its status, selector and
 * private key. The key goes out as stored, sealed under ENCRYPTION_KEY with the
 * domain id as associated data, because anyone who reaches NATS can read this
 * reply; the emails service shares the key and opens it. The HTTP API never
 * returns the key, and nothing logs it.
 */
@Injectable()
export class SenderIdentityService {
  constructor(
    private readonly repository: DomainsRepository,
    private readonly settings: DomainSettings,
  ) {}

  async find({ name }: SenderIdentityPayload): Promise<SenderIdentityReply> {
    const entity = typeof name === 'string' ? await this.repository.findByName(normalizeDomainName(name)) : null;
    if (!entity) return { identity: null };
    return {
      identity: {
        domainId: entity.id,
        name: entity.name,
        status: entity.status,
        dkim: { selector: entity.dkimSelector, privateKeySealed: entity.dkimPrivateKeySealed, sealedWithKeyId: this.settings.secretBox.keyId },
        trackingBaseUrl: trackingBaseUrlFor(entity, this.settings.trackingBaseUrl),
        openTracking: entity.openTracking,
        clickTracking: entity.clickTracking,
      },
    };
  }
}
