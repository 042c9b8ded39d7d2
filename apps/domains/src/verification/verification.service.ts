import { Injectable } from '@nestjs/common';
import { DomainEvents, DomainVerifyResponse, RequestContext } from '@mailroom/contracts';
import { DomainError } from '@mailroom/errors';
import type { NewEvent } from '@mailroom/outbox';
import { DomainEntity } from '../database/entities/domain.entity';
import { assertVisible } from '../domains/domain-access';
import { DkimPromotion, RotationLookup } from '../dkim-rotation/dkim-promotion';
import { DkimKeyCache } from '../dkim-zone/dkim-key-cache';
import { toDkimRotatedEventData, toEventData, toVerifyResponse } from '../domains/domain.mapper';
import { DomainSettings } from '../domains/domain-settings';
import { DomainsRepository } from '../domains/domains.repository';
import { nextTrackingDomainStatus } from '../tracking-domain/tracking-domain';
import { DomainVerifier, TrackingDomainCheck } from './domain-verifier';
import { CheckedRow, isOvertaken } from './check-overlap';
import { CheckTrigger, nextState } from './domain-transitions';
import { DomainCheck } from './verification-rules';

/** What a check's lookups found: the domain's three records, its custom tracking domain's, a pending DKIM key's. */
interface Lookups {
  check: DomainCheck;
  tracking: TrackingDomainCheck | null;
  rotation: RotationLookup | null;
}

/** The sooner of two times; null stands for never. */
function earliest(a: Date | null, b: Date | null): Date | null {
  if (!a || !b) return a ?? b;
  return a < b ? a : b;
}

/** Runs a check and applies its outcome: by request (verify) or from the background scheduler. */
@Injectable()
export class VerificationService {
  constructor(
    private readonly repository: DomainsRepository,
    private readonly verifier: DomainVerifier,
    private readonly settings: DomainSettings,
    private readonly promotion: DkimPromotion,
    private readonly keyCache: DkimKeyCache,
  ) {}

  async verify(ctx: RequestContext, id: string): Promise<DomainVerifyResponse> {
    const found = assertVisible(ctx, await this.repository.findById(id), id);
    const askedAt = new Date();
    const lookups = await this.lookUp(found);
    const applied = await this.apply(id, lookups, 'manual', found, askedAt);
    if (!applied) throw DomainError.notFound('domain', id);
    const { entity, check } = applied;
    return toVerifyResponse(entity, check, this.settings.records, entity.name, this.settings.trackingDomain, lookups.tracking);
  }

  /** One background check; a domain deleted meanwhile is simply gone. */
  async recheck(id: string): Promise<void> {
    const found = await this.repository.findById(id);
    if (!found) return;
    const askedAt = new Date();
    await this.apply(id, await this.lookUp(found), 'background', found, askedAt);
  }

  private async lookUp(domain: DomainEntity): Promise<Lookups> {
    const [check, tracking, rotation] = await Promise.all([this.verifier.check(domain), this.verifier.checkTrackingDomain(domain), this.promotion.lookUp(domain)]);
    return { check, tracking, rotation };
  }

  /**
   * The DNS answers were gathered outside the transaction, and are applied on the locked row unless another check
   * applied meanwhile overtook them (see isOvertaken: `read` is the row as it was before the lookups). An overtaken
   * check changes nothing and answers the state the other one left. `askedAt`: when the lookups began.
   * A pending rotation's CNAME found promotes its key first (DkimPromotion), and the DKIM record the state machine
   * then judges is the new active key's, which was just found: `check` as applied is answered with the entity.
   * A pending rotation also keeps the next check on its own schedule, while the domain is checked in the background at all.
   */
  private async apply(id: string, lookups: Lookups, trigger: CheckTrigger, read: CheckedRow & Pick<DomainEntity, 'dkimSelector'>, askedAt: Date): Promise<{ entity: DomainEntity; check: DomainCheck } | null> {
    const { tracking } = lookups;
    let check = lookups.check;
    const entity = await this.repository.updateLocked(id, async (entity, manager) => {
      // Another check promoted a rotation's key meanwhile: this one's DKIM answer is about the key that stopped signing.
      if (isOvertaken(read, entity, trigger) || entity.dkimSelector !== read.dkimSelector) return [];
      const now = new Date();
      const previousCheck = entity.lastCheckedAt;
      const rotation = await this.promotion.settle(manager, entity, lookups.rotation, trigger, now);
      if (rotation.promoted) check = Object.assign({}, check, { dkim: { result: 'pass' } });
      const { state, event } = nextState(entity, check, trigger, { askedAt, now }, this.settings.schedule);
      const nextCheckAt = earliest(this.notPastTrackingCheck(state.nextCheckAt, entity, tracking), state.nextCheckAt && rotation.nextCheckAt);
      Object.assign(entity, state, { lastCheckedAt: now, nextCheckAt });
      if (tracking && this.isCurrent(tracking, entity.trackingDomain, previousCheck) && entity.trackingDomainStatus) {
        entity.trackingDomainStatus = nextTrackingDomainStatus(entity.trackingDomainStatus, tracking.outcome);
      }
      const events: NewEvent[] = event ? [{ type: event, mode: 'live', data: toEventData(entity, this.settings.records, check) }] : [];
      if (rotation.promoted) events.push({ type: DomainEvents.dkimRotated, mode: 'live', data: toDkimRotatedEventData(entity, rotation.promoted) });
      return events;
    });
    // This replica answers the new key's selector and the retiring one's from its next query, not a minute later.
    if (entity && entity.dkimSelector !== read.dkimSelector) this.keyCache.forget(id);
    return entity && { entity, check };
  }

  /**
   * A PATCH that set a new tracking domain while this check's lookups ran pulled the next check forward to the first
   * DOMAIN_RECHECK_SCHEDULE step, for the name these lookups never asked about. Scheduled from this check alone, a
   * verified domain's next look came DOMAIN_VERIFIED_RECHECK_INTERVAL (6 h) later, and the tracking domain stayed
   * pending that long with its CNAME in place. A domain this check leaves unchecked in the background (null) stays so.
   */
  private notPastTrackingCheck(next: Date | null, locked: DomainEntity, tracking: TrackingDomainCheck | null): Date | null {
    const unlookedTrackingDomain = locked.trackingDomain !== null && locked.trackingDomain !== tracking?.name;
    if (!next || !locked.nextCheckAt || !unlookedTrackingDomain) return next;
    return locked.nextCheckAt < next ? locked.nextCheckAt : next;
  }

  /**
   * The tracking domain has its own status. Its answer counts only if it is
   * about the current name (a PATCH may have changed it meanwhile) and no other
   * check was applied since the lookup began (a manual verify and a background
   * check can overlap; the older answer must not undo the newer one).
   */
  private isCurrent(tracking: TrackingDomainCheck, trackingDomain: string | null, previousCheck: Date | null): boolean {
    return trackingDomain === tracking.name && (!previousCheck || previousCheck <= tracking.startedAt);
  }
}
