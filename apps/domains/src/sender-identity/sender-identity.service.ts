import { Injectable } from '@nestjs/common';
import { normalizeDomainName, SenderIdentityPayload, SenderIdentityReply } from '@mailroom/contracts';
import { DomainSettings } from '../domains/domain-settings';
import { DomainsRepository } from '../domains/domains.repository';
import { trackingBaseUrlFor } from '../tracking-domain/tracking-domain';

/**
 * What the emails service needs to send as a domain: its status, selector and
 * private key. The key goes out as stored, sealed under ENCRYPTION_KEY (or a key of
 * ENCRYPTION_KEY_PREVIOUS, until it is sealed again) with the
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
        dkim: { selector: entity.dkimSelector, privateKeySealed: entity.dkimPrivateKeySealed, sealedWithKeyId: this.sealedWithKeyId(entity.dkimPrivateKeySealed, entity.id) },
        trackingBaseUrl: trackingBaseUrlFor(entity, this.settings.trackingBaseUrl),
        openTracking: entity.openTracking,
        clickTracking: entity.clickTracking,
      },
    };
  }

  /**
   * The id of the key that opens the stored value: until it is sealed again after a rotation that is a key of
   * ENCRYPTION_KEY_PREVIOUS, and an emails service without it must be told a mismatch, not a damaged value.
   * When no key opens it, the current key's (the emails service then calls it damaged, as it is here too).
   */
  private sealedWithKeyId(sealed: string, domainId: string): string {
    try {
      return this.settings.secretBox.open(sealed, domainId).keyId;
    } catch {
      return this.settings.secretBox.keyId;
    }
  }
}
