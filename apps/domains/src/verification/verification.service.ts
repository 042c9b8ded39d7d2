import { Injectable } from '@nestjs/common';
import type { DomainVerifyResponse, RequestContext } from '@mailroom/contracts';
import { DomainError } from '@mailroom/errors';
import type { NewEvent } from '@mailroom/outbox';
import { DomainEntity } from '../database/entities/domain.entity';
import { assertVisible } from '../domains/domain-access';
import { toEventData, toVerifyResponse } from '../domains/domain.mapper';
import { DomainSettings } from '../domains/domain-settings';
import { DomainsRepository } from '../domains/domains.repository';
import { DomainVerifier } from './domain-verifier';
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
    const check = await this.verifier.check(found);
    const updated = await this.apply(id, check, 'manual');
    if (!updated) throw DomainError.notFound('domain', id);
    return toVerifyResponse(updated, check, this.settings.records, updated.name);
  }

  /** One background check; a domain deleted meanwhile is simply gone. */
  async recheck(id: string): Promise<void> {
    const found = await this.repository.findById(id);
    if (!found || found.status === 'failed') return;
    await this.apply(id, await this.verifier.check(found), 'background');
  }

  /** The DNS answers were gathered outside the transaction; the state change is decided on the locked, current row. */
  private apply(id: string, check: DomainCheck, trigger: CheckTrigger): Promise<DomainEntity | null> {
    return this.repository.updateLocked(id, (entity) => {
      const now = new Date();
      const { state, event } = nextState(entity, check, trigger, now, this.settings.schedule);
      Object.assign(entity, state, { lastCheckedAt: now });
      const events: NewEvent[] = event ? [{ type: event, mode: 'live', data: toEventData(entity, this.settings.records, check) }] : [];
      return events;
    });
  }
}
