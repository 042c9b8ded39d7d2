import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import type { ListParams, Mode, WebhookStatus } from '@mailroom/contracts';
import { KeysetPage, keysetPageInOneSnapshot, resealInBatches, ResealOutcome, Sealer } from '@mailroom/database';
import { WebhookEntity } from '../database/entities/webhook.entity';
import { returningRows } from '../database/returning-rows';

@Injectable()
export class WebhooksRepository {
  constructor(@InjectRepository(WebhookEntity) private readonly repository: Repository<WebhookEntity>) {}

  /** Seals both signing secrets (the webhook id as context) again under the current key where a previous one opens them. */
  resealSecrets(sealer: Sealer, stopped: () => boolean): Promise<ResealOutcome> {
    return resealInBatches(this.repository.manager.connection, sealer, { table: 'webhooks.webhooks', columns: ['secret_sealed', 'previous_secret_sealed'] }, stopped);
  }

  /** In `manager`'s transaction when given (a keyed creation's, which stores its Idempotency-Key with it). */
  insert(entity: WebhookEntity, manager: EntityManager = this.repository.manager): Promise<WebhookEntity> {
    return manager.save(entity);
  }

  find(id: string, mode: Mode): Promise<WebhookEntity | null> {
    return this.repository.findOneBy({ id, mode });
  }

  /** restrictedTo: the caller's domainRestrictions; only webhooks restricted within them are listed (see canReach). Empty: all. */
  list(mode: Mode, params: ListParams, status: WebhookStatus | undefined, restrictedTo: string[]): Promise<KeysetPage<WebhookEntity>> {
    const build = (manager: EntityManager) => {
      const query = manager.createQueryBuilder(WebhookEntity, 'w').where('w.mode = :mode', { mode });
      if (status) query.andWhere('w.status = :status', { status });
      if (restrictedTo.length) query.andWhere(`w.domain_restrictions <> '{}' AND w.domain_restrictions <@ CAST(:restrictedTo AS text[])`, { restrictedTo });
      return query;
    };
    return keysetPageInOneSnapshot(this.repository.manager.connection, build, 'w.id', params);
  }

  /**
   * Reads the webhook locked, lets `change` edit it and writes it back, in one
   * transaction. The dispatcher records every attempt's health (status,
   * failureCount, lastDelivery…) under the same row lock; a PATCH that read
   * the row unlocked and saved it whole wrote back the health it had read,
   * undoing attempts recorded in between (and could re-enable a webhook a
   * 410 had just disabled). Null when there is no such webhook.
   */
  async modify(id: string, mode: Mode, change: (entity: WebhookEntity) => void): Promise<WebhookEntity | null> {
    return this.repository.manager.transaction(async (manager) => {
      const entity = await manager.findOne(WebhookEntity, { where: { id, mode }, lock: { mode: 'for_no_key_update' } });
      if (!entity) return null;
      change(entity);
      entity.updatedAt = new Date();
      return manager.save(entity);
    });
  }

  /**
   * Its deliveries and their attempt log go with it. Lock order, the same as
   * DispatchRepository.recordAttempts (see WEBHOOK_LOCK_ORDER there): the
   * webhook row first, then its deliveries. Holding the webhook row (FOR
   * UPDATE, the lock deleting it takes anyway) also holds back new deliveries
   * (their foreign key check waits for it), so the cascade of the last
   * statement finds none to wait for. The deliveries are locked in id order,
   * the order the retention purge (purgeFinished) locks them in: taken in the
   * order a plan happened to read them (the webhook's index is id DESC), a
   * delete that met a purge among the same deliveries deadlocked and failed.
   * False when there was nothing to delete: another request deleted it first.
   */
  async delete(id: string): Promise<boolean> {
    return this.repository.manager.transaction(async (manager) => {
      const locked: unknown[] = await manager.query(`SELECT 1 FROM webhooks.webhooks WHERE id = $1 FOR UPDATE`, [id]);
      if (!locked.length) return false;
      await manager.query(
        `DELETE FROM webhooks.deliveries WHERE id IN (SELECT id FROM webhooks.deliveries WHERE webhook_id = $1 ORDER BY id FOR UPDATE)`,
        [id],
      );
      return returningRows(await manager.query(`DELETE FROM webhooks.webhooks WHERE id = $1 RETURNING id`, [id])).length > 0;
    });
  }
}
