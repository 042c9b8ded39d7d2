import { Injectable } from '@nestjs/common';
import {
  DeletedResponse,
  ListParams,
  RequestContext,
  WebhookCreatedResponse,
  WebhookCreatePayload,
  WebhookList,
  WebhookResponse,
  WebhookSecretResponse,
  WebhookSecretRotatedResponse,
  webhookEventsProblem,
  WebhookStatus,
  WebhookUpdatePayload,
} from '@mailroom/contracts';
import { DomainError } from '@mailroom/errors';
import { ulid } from '@mailroom/database';
import { WebhookEntity } from '../database/entities/webhook.entity';
import { afterManualStatus } from '../dispatch/status-transitions';
import { webhookUrlProblem } from '../ssrf/url-policy';
import { WebhookSettings } from '../webhook-settings';
import { canReach } from './webhook-access';
import { toListItem, toResponse } from './webhook.mapper';
import { generateWebhookSecret, openSecret, ROTATION_GRACE_MS, UNREADABLE_SECRET_MESSAGE } from './webhook-secret';
import { WebhookIdempotency } from './webhook-idempotency';
import { WebhooksRepository } from './webhooks.repository';

@Injectable()
export class WebhooksService {
  constructor(
    private readonly repository: WebhooksRepository,
    private readonly settings: WebhookSettings,
    private readonly idempotency: WebhookIdempotency,
  ) {}

  /**
   * With an Idempotency-Key, by the sends' rules (README "Webhooks"): a key already answered replays its webhook as
   * it is now; a request refused here (422) stores nothing, since the key is claimed only with the insert.
   */
  async create({ ctx, input, idempotency }: WebhookCreatePayload): Promise<WebhookCreatedResponse> {
    const started = new Date();
    const replayed = idempotency && (await this.idempotency.createdWebhookId(ctx.keyId, idempotency));
    if (replayed) return this.replay(ctx, idempotency.key, replayed);
    const url = this.checkedUrl(input.url);
    const events = this.checkedEvents(input.events);
    const secret = generateWebhookSecret();
    const id = `wh_${ulid()}`;
    const now = new Date();
    const entity = Object.assign(new WebhookEntity(), {
      id,
      mode: ctx.mode,
      url,
      events,
      // Stored as the keys service stores them (lower-case punycode), the form events are compared in.
      domainRestrictions: [...ctx.domainRestrictions],
      description: input.description ?? null,
      status: 'active',
      secretSealed: this.settings.secretBox.encrypt(secret, id),
      previousSecretSealed: null,
      previousSecretExpiresAt: null,
      failureCount: 0,
      failedDeliveriesStreak: 0,
      firstFailureAt: null,
      disabledReason: null,
      lastDeliveryAt: null,
      lastDeliveryStatus: null,
      createdAt: now,
      updatedAt: now,
    } satisfies WebhookEntity);
    if (!idempotency) return withSecret(await this.repository.insert(entity), secret);
    const keyedId = await this.idempotency.createOnce(ctx.keyId, idempotency, started, async (manager) => (await this.repository.insert(entity, manager)).id);
    return keyedId === id ? withSecret(entity, secret) : this.replay(ctx, idempotency.key, keyedId);
  }

  /**
   * The answer to a key already answered: the webhook it created as it is now, with its current secret. 409 when
   * it is gone (or the key may no longer reach it): answering 201 for a webhook that does not exist would have the
   * client believe it receives events, and creating another would be a new request under an old key.
   */
  private async replay(ctx: RequestContext, key: string, id: string): Promise<WebhookCreatedResponse> {
    const entity = await this.repository.find(id, ctx.mode);
    if (!entity || !canReach(ctx, entity)) {
      throw DomainError.conflict(`The Idempotency-Key '${key}' created webhook ${id}, which has since been deleted; use a new key to create another.`);
    }
    const secret = openSecret(this.settings.secretBox, entity.secretSealed, entity.id);
    if (secret === null) throw DomainError.conflict(UNREADABLE_SECRET_MESSAGE);
    return withSecret(entity, secret);
  }

  async list(ctx: RequestContext, params: ListParams, status?: WebhookStatus): Promise<WebhookList> {
    const page = await this.repository.list(ctx.mode, params, status, ctx.domainRestrictions);
    return { object: 'list', data: page.rows.map(toListItem), hasMore: page.hasMore, totalCount: page.totalCount };
  }

  async get(ctx: RequestContext, id: string): Promise<WebhookResponse> {
    return toResponse(await this.find(ctx, id));
  }

  async update({ ctx, id, input }: WebhookUpdatePayload): Promise<WebhookResponse> {
    // Checked inside, after the webhook is found reachable: an unknown webhook is 404 whatever the body says.
    const updated = await this.modifyReachable(ctx, id, (entity) => {
      if (input.url !== undefined) entity.url = this.checkedUrl(input.url);
      if (input.events !== undefined) entity.events = this.checkedEvents(input.events);
      if (input.description !== undefined) entity.description = input.description;
      if (input.status !== undefined) Object.assign(entity, afterManualStatus(entity, input.status));
    });
    return toResponse(updated);
  }

  async delete(ctx: RequestContext, id: string): Promise<DeletedResponse<'webhook'>> {
    await this.find(ctx, id);
    // Of requests racing to delete one webhook, one deletes it; the others find nothing left, as after it.
    if (!(await this.repository.delete(id))) throw DomainError.notFound('webhook', id);
    return { id, object: 'webhook', deleted: true };
  }

  async getSecret(ctx: RequestContext, id: string): Promise<WebhookSecretResponse> {
    const entity = await this.find(ctx, id);
    const secret = openSecret(this.settings.secretBox, entity.secretSealed, entity.id);
    if (secret === null) throw DomainError.conflict(UNREADABLE_SECRET_MESSAGE);
    return { object: 'webhook_secret', secret };
  }

  /**
   * Issues a new secret. The current one keeps signing, as a second v1=
   * value, for 24 hours. Rotating again within that time drops the oldest.
   * A current secret that does not decrypt gets no grace: nothing could sign
   * with it, and kept as the previous one it would fail every delivery for
   * the 24 hours, so the rotation that recovers from it would not.
   */
  async rotateSecret(ctx: RequestContext, id: string): Promise<WebhookSecretRotatedResponse> {
    const secret = generateWebhookSecret();
    const now = Date.now();
    let previousExpiresAt = new Date(now + ROTATION_GRACE_MS);
    // Locked like a PATCH: two rotations at once would each keep the same previous secret, and one caller's new secret would sign nothing.
    await this.modifyReachable(ctx, id, (entity) => {
      const readable = openSecret(this.settings.secretBox, entity.secretSealed, entity.id) !== null;
      if (!readable) previousExpiresAt = new Date(now);
      entity.previousSecretSealed = readable ? entity.secretSealed : null;
      entity.previousSecretExpiresAt = readable ? previousExpiresAt : null;
      entity.secretSealed = this.settings.secretBox.encrypt(secret, entity.id);
    });
    return { object: 'webhook_secret', secret, previousSecretExpiresAt: previousExpiresAt.toISOString() };
  }

  async find(ctx: RequestContext, id: string): Promise<WebhookEntity> {
    return reachable(ctx, id, await this.repository.find(id, ctx.mode));
  }

  /** Changes a webhook the caller may reach, under the row lock (WebhooksRepository.modify); 404 for any other. */
  private async modifyReachable(ctx: RequestContext, id: string, change: (entity: WebhookEntity) => void): Promise<WebhookEntity> {
    const modified = await this.repository.modify(id, ctx.mode, (entity) => change(reachable(ctx, id, entity)));
    return reachable(ctx, id, modified);
  }

  /**
   * The URL as the parser writes it, which is what the dispatcher calls: stored and answered so, it is a URI as the
   * document promises (spaces around it dropped, the host in lower-case punycode, a space in the path %20).
   */
  private checkedUrl(url: string): string {
    const problem = webhookUrlProblem(url, this.settings.urlPolicy);
    if (problem) throw DomainError.validation('url', problem);
    return new URL(url).href;
  }

  private checkedEvents(events: string[]): string[] {
    const problem = webhookEventsProblem(events);
    if (problem) throw DomainError.validation(problem.field, problem.problem);
    return [...new Set(events)];
  }
}

/** A creation's answer: the webhook and its signing secret, in clear. */
function withSecret(entity: WebhookEntity, secret: string): WebhookCreatedResponse {
  return Object.assign(toResponse(entity), { secret });
}

/** The webhook, when there is one the caller may reach; otherwise 404, as if it did not exist (see canReach). */
function reachable(ctx: RequestContext, id: string, entity: WebhookEntity | null): WebhookEntity {
  if (!entity || !canReach(ctx, entity)) throw DomainError.notFound('webhook', id);
  return entity;
}
