import { Injectable } from '@nestjs/common';
import type { DomainVerifyResponse, RequestContext } from '@mailroom/contracts';
import { DomainError } from '@mailroom/errors';
import type { NewEvent } from '@mailroom/outbox';
import { DomainEntity } from '../database/entities/domain.entity';
import { assertVisible } from '../domains/domain-access';
import { toEventData, toVerifyResponse } from '../domains/domain.mapper';
import { DomainSettings } from '../domains/domain-settings';
import { DomainsRepository } from '../domains/domains.repository';
import { nextTrackingDomainStatus } from '../tracking-domain/tracking-domain';
import { DomainVerifier, TrackingDomainCheck } from './domain-verifier';
import { CheckedRow, isOvertaken } from './check-overlap';
import { CheckTrigger, nextState } from './domain-transitions';
import { DomainCheck } from './verification-rules';

/** Runs a check and applies its outcome: by request (verify) or from the background scheduler. */
@Injectable()
export class VerificationService {
  constructor(
    private readonly repository: DomainsRepository,
    private readonly verifier: DomainVerifier,
    private readonly settings: DomainSettings,
  ) {}

  async verify(ctx: RequestContext, id: string): Promise<DomainVerifyResponse> {
    const found = assertVisible(ctx, await this.repository.findById(id), id);
    const askedAt = new Date();
    const [check, tracking] = await this.lookUp(found);
    const updated = await this.apply(id, check, tracking, 'manual', found, askedAt);
    if (!updated) throw DomainError.notFound('domain', id);
    return toVerifyResponse(updated, check, this.settings.records, updated.name, this.settings.trackingDomain, tracking);
  }

  /** One background check; a domain deleted meanwhile is simply gone. */
  async recheck(id: string): Promise<void> {
    const found = await this.repository.findById(id);
    if (!found) return;
    const askedAt = new Date();
    const [check, tracking] = await this.lookUp(found);
    await this.apply(id, check, tracking, 'background', found, askedAt);
  }

  private lookUp(domain: DomainEntity): Promise<[DomainCheck, TrackingDomainCheck | null]> {
    return Promise.all([this.verifier.check(domain), this.verifier.checkTrackingDomain(domain)]);
  }

  /**
   * The DNS answers were gathered outside the transaction, and are applied on the locked row unless another check
   * applied meanwhile overtook them (see isOvertaken: `read` is the row as it was before the lookups). An overtaken
   * check changes nothing and answers the state the other one left. `askedAt`: when the lookups began.
   */
  private apply(id: string, check: DomainCheck, tracking: TrackingDomainCheck | null, trigger: CheckTrigger, read: CheckedRow, askedAt: Date): Promise<DomainEntity | null> {
    return this.repository.updateLocked(id, (entity) => {
      if (isOvertaken(read, entity, trigger)) return [];
      const now = new Date();
      const previousCheck = entity.lastCheckedAt;
      const { state, event } = nextState(entity, check, trigger, { askedAt, now }, this.settings.schedule);
      const nextCheckAt = this.notPastTrackingCheck(state.nextCheckAt, entity, tracking);
      Object.assign(entity, state, { lastCheckedAt: now, nextCheckAt });
      if (tracking && this.isCurrent(tracking, entity.trackingDomain, previousCheck) && entity.trackingDomainStatus) {
        entity.trackingDomainStatus = nextTrackingDomainStatus(entity.trackingDomainStatus, tracking.outcome);
      }
      const events: NewEvent[] = event ? [{ type: event, mode: 'live', data: toEventData(entity, this.settings.records, check) }] : [];
      return events;
    });
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
