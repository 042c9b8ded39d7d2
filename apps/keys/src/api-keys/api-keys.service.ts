import { Inject, Injectable } from '@nestjs/common';
import { ClientProxy } from '@nestjs/microservices';
import {
  ApiKeyCreatedResponse,
  ApiKeyCreatePayload,
  ApiKeyDeletePayload,
  ApiKeyList,
  ApiKeyResponse,
  ApiKeysUsedEvent,
  ApiKeyUpdatePayload,
  ApiKeyVerifyReply,
  DeletedResponse,
  KeysEvents,
  ListParams,
  RequestContext,
} from '@mailroom/contracts';
import { DomainError } from '@mailroom/errors';
import { hashesEqual } from '@mailroom/auth';
import { ApiKeyEntity } from '../database/entities/api-key.entity';
import { assertNotRevived, changesOf } from './api-key-changes';
import { issueApiKey } from './api-key-issuer';
import { toResponse, toVerified } from './api-key.mapper';
import { assertManageable } from './manage-rules';
import { withStoredDomainNames } from './restricted-domain-names';
import { ApiKeyReadCache } from './api-key-read-cache';
import { ApiKeysRepository } from './api-keys.repository';
import { assertWithinCaller, inheritFromCaller, withoutNullFields } from './grant-rules';

export const KEYS_EVENTS_CLIENT = Symbol('KeysEventsClient');

/** key_ + a ULID. Anything else cannot exist, and must not reach Postgres (a NUL byte there is a 500, not a 404). */
const KEY_ID = /^key_[0-9A-HJKMNP-TV-Z]{26}$/;

@Injectable()
export class ApiKeysService {
  constructor(
    private readonly repository: ApiKeysRepository,
    private readonly readCache: ApiKeyReadCache,
    @Inject(KEYS_EVENTS_CLIENT) private readonly events: ClientProxy,
  ) {}

  async create({ ctx, caller, input }: ApiKeyCreatePayload): Promise<ApiKeyCreatedResponse> {
    const wanted = withStoredDomainNames(withoutNullFields(input));
    const mode = wanted.mode ?? ctx.mode;
    if (ctx.mode === 'test' && mode === 'live') throw DomainError.forbidden('A test key can only create test keys.');
    assertWithinCaller(caller, wanted);
    return issueApiKey({ name: wanted.name, mode, ...inheritFromCaller(caller, wanted) }, (entity) => this.repository.insert(entity));
  }

  async list(ctx: RequestContext, params: ListParams): Promise<ApiKeyList> {
    const page = await this.repository.list(ctx.mode, params);
    return { object: 'list', data: page.rows.map(toResponse), hasMore: page.hasMore, totalCount: page.totalCount };
  }

  async get(ctx: RequestContext, id: string): Promise<ApiKeyResponse> {
    // find() throws for a key that does not exist, so only answers found are cached.
    return (await this.readCache.get(ctx.mode, id, async () => toResponse(await this.find(ctx, id))))!;
  }

  async update({ ctx, caller, id, input: given }: ApiKeyUpdatePayload): Promise<ApiKeyResponse> {
    const input = withStoredDomainNames(given);
    const decide = (entity: ApiKeyEntity) => {
      assertManageable(caller, toVerified(entity));
      assertWithinCaller(caller, input);
      assertNotRevived(entity, input);
      return changesOf(input);
    };
    return toResponse(await this.changeLive(ctx, id, decide));
  }

  /**
   * Judged against the row as it is when deleted, under its lock: a check on
   * an earlier read let a key with api-keys:* alone delete a key that a
   * PATCH in flight was raising to *. Of DELETEs racing for one key, the
   * first deletes it and the others, waiting on its lock, find it gone (404).
   */
  async delete({ ctx, caller, id }: ApiKeyDeletePayload): Promise<DeletedResponse<'api_key'>> {
    const deletedAt = new Date();
    await this.changeLive(ctx, id, (entity) => {
      if (caller) assertManageable(caller, toVerified(entity));
      return { deletedAt };
    });
    return { id, object: 'api_key', deleted: true };
  }

  async verify(keyHash: string): Promise<ApiKeyVerifyReply> {
    const entity = await this.repository.findByHash(keyHash);
    if (!entity || !hashesEqual(entity.keyHash, keyHash)) return { key: null };
    if (entity.deletedAt) return { key: null, revoked: true };
    return { key: toVerified(entity) };
  }

  async markUsed({ keyIds, usedAt, usedAtByKey }: ApiKeysUsedEvent): Promise<void> {
    if (!keyIds.length) return;
    // A gateway of an earlier release sends only the time of its report, for every key.
    await this.repository.markUsed(keyIds.map((keyId) => ({ keyId, at: new Date(usedAtByKey?.[keyId] ?? usedAt) })));
    for (const keyId of keyIds) this.readCache.evict(keyId);
  }

  /** Changes a live key of the caller's mode under its row lock and tells every replica; 404 when there is none. */
  private async changeLive(ctx: RequestContext, id: string, decide: (entity: ApiKeyEntity) => Partial<ApiKeyEntity>): Promise<ApiKeyEntity> {
    const changed = KEY_ID.test(id) ? await this.repository.updateLive(id, ctx.mode, decide) : null;
    if (!changed) throw DomainError.notFound('API key', id);
    this.announceChange(id);
    return changed;
  }

  private async find(ctx: RequestContext, id: string) {
    const entity = KEY_ID.test(id) ? await this.repository.findLive(id, ctx.mode) : null;
    if (!entity) throw DomainError.notFound('API key', id);
    return entity;
  }

  /** Every gateway replica evicts the key from its cache, so a change takes effect at once. */
  private announceChange(keyId: string): void {
    this.readCache.evict(keyId);
    this.events.emit(KeysEvents.changed, { keyId }).subscribe({ error: () => undefined });
  }
}
