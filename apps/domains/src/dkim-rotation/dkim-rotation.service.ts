import { Injectable } from '@nestjs/common';
import type { DomainResponse, RequestContext } from '@mailroom/contracts';
import { DomainError } from '@mailroom/errors';
import type { DkimKeyEntity } from '../database/entities/dkim-key.entity';
import type { DomainEntity } from '../database/entities/domain.entity';
import { DkimKeyCache } from '../dkim-zone/dkim-key-cache';
import { generateDkimKeyPair } from '../domains/dkim-key-pair';
import { assertVisible } from '../domains/domain-access';
import { toResponse } from '../domains/domain.mapper';
import { DomainSettings } from '../domains/domain-settings';
import { DomainsRepository } from '../domains/domains.repository';
import { DkimKeysRepository } from './dkim-keys.repository';
import { rotationSelector } from './rotation-selector';

/**
 * Starts a DKIM key rotation: a new key under a new selector, `pending` (published in the zone, signing nothing)
 * until a check of the domain finds its CNAME (see DkimPromotion). Repeated while pending, it replaces the pending
 * key and keeps its selector, so a CNAME the owner already published stays right.
 */
@Injectable()
export class DkimRotationService {
  constructor(
    private readonly domains: DomainsRepository,
    private readonly dkimKeys: DkimKeysRepository,
    private readonly keyCache: DkimKeyCache,
    private readonly settings: DomainSettings,
  ) {}

  async rotate(ctx: RequestContext, id: string): Promise<DomainResponse> {
    assertRotatable(assertVisible(ctx, await this.domains.findById(id), id));
    // Made before the row is locked: a 2048-bit key takes a while, and checks and PATCHes of the domain would wait on it.
    const keys = await generateDkimKeyPair();
    const privateKeySealed = this.settings.secretBox.encrypt(keys.privateKeyPem, id);
    let pending: DkimKeyEntity | null = null;
    const updated = await this.domains.updateLocked(id, async (domain, manager) => {
      assertRotatable(domain);
      const now = new Date();
      const existing = await this.dkimKeys.findPending(id, manager);
      const selector = existing?.selector ?? rotationSelector(now, await this.dkimKeys.usedSelectors(manager, domain));
      if (!selector) throw DomainError.conflict(`Domain ${domain.name} has used every DKIM selector of this month; rotate it again next month.`);
      pending = await this.dkimKeys.savePending(manager, id, existing, { selector, publicKey: keys.publicKeyBase64, privateKeySealed }, now);
      // The new CNAME is looked for on the pending schedule, from its first step (see DkimPromotion.settle).
      const firstCheck = new Date(now.getTime() + this.settings.schedule.recheckSchedule[0]);
      if (domain.nextCheckAt && domain.nextCheckAt > firstCheck) domain.nextCheckAt = firstCheck;
      domain.updatedAt = now; // the domain object changed (dkimRotation), though none of its row's own columns did
      return [];
    });
    if (!updated) throw DomainError.notFound('domain', id);
    this.keyCache.forget(id);
    return toResponse(updated, pending, this.settings.records, this.settings.trackingDomain);
  }
}

/** Only a verified domain: its active key is in place to sign while the new one waits, and the owner can publish records. */
function assertRotatable(domain: Pick<DomainEntity, 'name' | 'status'>): void {
  if (domain.status !== 'verified') {
    throw DomainError.conflict(`Domain ${domain.name} is ${domain.status}; only a verified domain's DKIM key can be rotated. Verify it first.`);
  }
}
