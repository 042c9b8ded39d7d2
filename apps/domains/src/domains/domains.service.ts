import { Inject, Injectable } from '@nestjs/common';
import { ClientProxy } from '@nestjs/microservices';
import { ulid } from '@mailroom/database';
import {
  DeletedResponse,
  DomainBroadcasts,
  DomainDeletedBroadcast,
  DomainCreatePayload,
  DomainList,
  DomainListPayload,
  DomainResponse,
  sendingDomainNameProblem,
  DomainUpdateInput,
  DomainUpdatePayload,
  normalizeDomainName,
  RequestContext,
} from '@mailroom/contracts';
import { DomainError, ErrorCode } from '@mailroom/errors';
import type { DkimKeyEntity } from '../database/entities/dkim-key.entity';
import { DomainEntity } from '../database/entities/domain.entity';
import { DkimKeysRepository } from '../dkim-rotation/dkim-keys.repository';
import { DkimKeyCache } from '../dkim-zone/dkim-key-cache';
import { applyDomainUpdate, assertTrackingDomainApart, requestedTrackingDomain } from '../tracking-domain/tracking-domain';
import { dkimSelectorFor } from './dns-records';
import { generateDkimKeyPair } from './dkim-key-pair';
import { assertMayAdd, assertMayTrackUnder, assertVisible } from './domain-access';
import { toListItem, toResponse } from './domain.mapper';
import { DomainSettings } from './domain-settings';
import { DomainsRepository } from './domains.repository';
import { DOMAINS_NATS_CLIENT, EmailsUsageClient } from './emails-usage.client';
import { assertOutsideDkimZone } from './outside-dkim-zone';

@Injectable()
export class DomainsService {
  constructor(
    private readonly repository: DomainsRepository,
    private readonly settings: DomainSettings,
    private readonly emailsUsage: EmailsUsageClient,
    private readonly keyCache: DkimKeyCache,
    private readonly dkimKeys: DkimKeysRepository,
    @Inject(DOMAINS_NATS_CLIENT) private readonly events: ClientProxy,
  ) {}

  async create({ ctx, input }: DomainCreatePayload): Promise<DomainResponse> {
    // The gateway validated the DTO; checked again because NATS callers are not only the gateway.
    const problem = sendingDomainNameProblem(input.name);
    if (problem) throw DomainError.validation('name', problem);
    const name = normalizeDomainName(input.name);
    assertOutsideDkimZone('name', name, this.settings.dkimZone);
    assertMayAdd(ctx, name);
    const existing = await this.repository.findByName(name);
    if (existing) throw this.alreadyExists(existing);

    const now = new Date();
    const id = `dom_${ulid()}`;
    const keys = await generateDkimKeyPair();
    const entity = Object.assign(new DomainEntity(), {
      id,
      name,
      region: input.region ?? 'us',
      status: 'pending',
      spfStatus: 'pending',
      dkimStatus: 'pending',
      dmarcStatus: 'pending',
      dkimSelector: dkimSelectorFor(now),
      dkimPublicKey: keys.publicKeyBase64,
      dkimPrivateKeySealed: this.settings.secretBox.encrypt(keys.privateKeyPem, id),
      openTracking: true,
      clickTracking: true,
      trackingDomain: null,
      trackingDomainStatus: null,
      createdAt: now,
      verifiedAt: null,
      failedAt: null,
      pendingSince: now,
      recordsMissingSince: null,
      checkAttempts: 0,
      nextCheckAt: new Date(now.getTime() + this.settings.schedule.recheckSchedule[0]),
      lastCheckedAt: null,
      updatedAt: now,
    } satisfies DomainEntity);
    if (!(await this.repository.insert(entity))) throw this.alreadyExists((await this.repository.findByName(name)) ?? entity);
    this.keyCache.forget(id);
    return toResponse(entity, null, this.settings.records, this.settings.trackingDomain, false);
  }

  async list({ ctx, params, status }: DomainListPayload): Promise<DomainList> {
    const page = await this.repository.list(params, status, ctx.domainRestrictions ?? []);
    return { object: 'list', data: page.rows.map(toListItem), hasMore: page.hasMore, totalCount: page.totalCount };
  }

  async get(ctx: RequestContext, id: string): Promise<DomainResponse> {
    const entity = assertVisible(ctx, await this.repository.findById(id), id);
    return toResponse(entity, await this.dkimKeys.findPending(id), this.settings.records, this.settings.trackingDomain);
  }

  /**
   * Tracking switches and the custom tracking domain. The emails service
   * caches sender identities for SENDER_IDENTITY_CACHE_TTL, so mail picks the
   * change up within that time.
   */
  async update({ ctx, id, input }: DomainUpdatePayload): Promise<DomainResponse> {
    const checked = this.checkedUpdate(input);
    const { name } = assertVisible(ctx, await this.repository.findById(id), id);
    assertMayTrackUnder(ctx, checked.trackingDomain);
    assertTrackingDomainApart(checked.trackingDomain, name);
    assertOutsideDkimZone('trackingDomain', checked.trackingDomain, this.settings.dkimZone);
    const firstCheckAt = new Date(Date.now() + this.settings.schedule.recheckSchedule[0]);
    let pending: DkimKeyEntity | null = null;
    const updated = await this.repository.updateLocked(id, async (entity, manager) => {
      applyDomainUpdate(entity, checked, firstCheckAt);
      pending = await this.dkimKeys.findPending(id, manager);
      return [];
    });
    if (!updated) throw DomainError.notFound('domain', id);
    return toResponse(updated, pending, this.settings.records, this.settings.trackingDomain);
  }

  /** The gateway validated the DTO; checked again (and normalized) because NATS callers are not only the gateway. */
  private checkedUpdate(input: DomainUpdateInput): DomainUpdateInput {
    if (input === null || typeof input !== 'object' || Array.isArray(input)) throw DomainError.validation('body', 'must be a JSON object');
    for (const field of ['openTracking', 'clickTracking'] as const) {
      if (input[field] !== undefined && typeof input[field] !== 'boolean') throw DomainError.validation(field, 'must be true or false');
    }
    const { trackingDomain, ...flags } = input;
    if (trackingDomain === undefined) return input;
    // Spread, not Object.assign: the input is parsed JSON, and Object.assign would set a `__proto__` key as the prototype.
    return { trackingDomain: requestedTrackingDomain(trackingDomain, this.settings.trackingDomain), ...flags };
  }

  /**
   * Refused while the emails service reports mail from the domain still on its
   * way; if it does not answer, nothing is deleted (503). The DKIM key goes
   * with the row, so its zone record disappears too.
   * The in-use check and a send from the domain can cross (two services, no
   * shared transaction): the send checked the domain before it was deleted. The
   * emails service orders them under the domain's lock: the send is counted, or
   * refused once the check answered 0 (it records the domain id as deleted, so
   * the row must go now; a failure below leaves sends refused until a DELETE
   * repeated finishes). `sending-domain.deleted` makes every emails replica drop
   * the identity it caches.
   */
  async delete(ctx: RequestContext, id: string): Promise<DeletedResponse<'domain'>> {
    const entity = assertVisible(ctx, await this.repository.findById(id), id);
    const active = await this.emailsUsage.activeEmails(entity.name, entity.id);
    if (active > 0) {
      throw new DomainError(ErrorCode.InUse, `Domain ${entity.name} still has ${active} email(s) queued, scheduled or being delivered; delete it once they are done.`);
    }
    // Of requests racing to delete one domain, one deletes it; the others find nothing left, as after it.
    if (!(await this.repository.delete(id))) throw DomainError.notFound('domain', id);
    this.keyCache.forget(id);
    const deleted: DomainDeletedBroadcast = { name: entity.name };
    // Fire and forget: an emails replica that misses it (reconnecting) drops its whole cache on reconnect.
    this.events.emit(DomainBroadcasts.deleted, deleted).subscribe({ error: () => undefined });
    return { id, object: 'domain', deleted: true };
  }

  /** Names the existing domain's id: a client whose create timed out (503) and who retries learns where it went. */
  private alreadyExists(existing: Pick<DomainEntity, 'id' | 'name'>): DomainError {
    return DomainError.conflict(`The domain ${existing.name} already exists as ${existing.id}.`);
  }
}
