import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Repository } from 'typeorm';
import type { DeliveryStatus, ListParams } from '@mailroom/contracts';
import { deleteInBatches, firstIdAt, inOneSnapshot, KeysetPage, keysetPage } from '@mailroom/database';
import { returningRows } from '../database/returning-rows';
import { DeliveryAttemptEntity } from '../database/entities/delivery-attempt.entity';
import { DeliveryEntity } from '../database/entities/delivery.entity';

const FOREIGN_KEY_VIOLATION = '23503';

/** The delivery log as the API sees it; the dispatch loop has its own queries. */
@Injectable()
export class DeliveriesRepository {
  constructor(@InjectRepository(DeliveryEntity) private readonly deliveries: Repository<DeliveryEntity>) {}

  /** A page of a webhook's deliveries and their attempt logs, in one snapshot so each status agrees with its log. */
  pageWithAttempts(
    webhookId: string,
    params: ListParams,
    status?: DeliveryStatus,
  ): Promise<{ page: KeysetPage<DeliveryEntity>; attempts: Map<string, DeliveryAttemptEntity[]> }> {
    return inOneSnapshot(this.deliveries.manager.connection, async (manager) => {
      const query = manager.createQueryBuilder(DeliveryEntity, 'd').where('d.webhook_id = :webhookId', { webhookId });
      if (status) query.andWhere('d.status = :status', { status });
      const page = await keysetPage(query, 'd.id', params);
      return { page, attempts: await this.attemptsOf(page.rows.map((row) => row.id), manager) };
    });
  }

  find(webhookId: string, id: string): Promise<DeliveryEntity | null> {
    return this.deliveries.findOneBy({ id, webhookId });
  }

  /** A delivery and its attempt log, in one snapshot, as pageWithAttempts reads a page. */
  findWithAttempts(id: string): Promise<{ delivery: DeliveryEntity; attempts: DeliveryAttemptEntity[] } | null> {
    return inOneSnapshot(this.deliveries.manager.connection, async (manager) => {
      const delivery = await manager.findOneBy(DeliveryEntity, { id });
      if (!delivery) return null;
      return { delivery, attempts: (await this.attemptsOf([id], manager)).get(id) ?? [] };
    });
  }

  /** Attempt logs of several deliveries, oldest attempt first, by delivery id. */
  private async attemptsOf(deliveryIds: string[], manager: EntityManager): Promise<Map<string, DeliveryAttemptEntity[]>> {
    const byDelivery = new Map<string, DeliveryAttemptEntity[]>(deliveryIds.map((id) => [id, []]));
    if (!deliveryIds.length) return byDelivery;
    const rows = await manager.find(DeliveryAttemptEntity, { where: { deliveryId: In(deliveryIds) }, order: { attempt: 'ASC', id: 'ASC' } });
    for (const row of rows) byDelivery.get(row.deliveryId)?.push(row);
    return byDelivery;
  }

  /**
   * Null when the webhook is gone: a DELETE that committed after the caller
   * read it, which the foreign key finds (its check waits for that DELETE).
   */
  async insert(entity: DeliveryEntity): Promise<DeliveryEntity | null> {
    try {
      return await this.deliveries.save(entity);
    } catch (error) {
      if ((error as { driverError?: { code?: string } }).driverError?.code === FOREIGN_KEY_VIOLATION) return null;
      throw error;
    }
  }

  /**
   * Makes a delivery due now. A finished one (succeeded or failed) gets
   * exactly one more attempt; one still retrying keeps its remaining retries.
   * A delivery leased by a dispatcher right now is left alone (false), and so
   * is one deleted meanwhile with its webhook (false; find tells the two apart).
   */
  async retryNow(id: string): Promise<boolean> {
    const rows = returningRows<{ id: string }>(
      await this.deliveries.query(
      `UPDATE webhooks.deliveries
          SET attempt_limit = CASE WHEN status IN ('succeeded', 'failed') THEN attempts + 1 ELSE attempt_limit END,
              status = CASE WHEN status IN ('succeeded', 'failed') THEN 'pending' ELSE status END,
              next_attempt_at = now(), updated_at = now()
        WHERE id = $1 AND (lease_expires_at IS NULL OR lease_expires_at < now())
        RETURNING id`,
      [id],
      ),
    );
    return rows.length > 0;
  }

  /**
   * Deletes finished deliveries (succeeded or failed) older than the
   * retention, with their attempt logs (ON DELETE CASCADE), in bounded
   * statements. Delivery ids start with the time of the event's fan-out
   * (whd_ + a ULID's time), so the primary key bounds the scan; a delivery
   * retried by hand since then is kept until the retention has passed since
   * that retry too.
   */
  purgeFinished(retentionMs: number): Promise<number> {
    const cutoff = Date.now() - retentionMs;
    return deleteInBatches(this.deliveries.manager.connection, {
      table: 'webhooks.deliveries',
      key: 'id',
      where: `id < $1 AND status IN ('succeeded', 'failed') AND updated_at < to_timestamp($2::double precision / 1000)`,
      parameters: [firstIdAt('whd_', cutoff), cutoff],
    });
  }
}
