import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { ListParams, Mode, WebhookStatus } from '@mailroom/contracts';
import { KeysetPage, keysetPage } from '@mailroom/database';
import { WebhookEntity } from '../database/entities/webhook.entity';

@Injectable()
export class WebhooksRepository {
  constructor(@InjectRepository(WebhookEntity) private readonly repository: Repository<WebhookEntity>) {}

  insert(entity: WebhookEntity): Promise<WebhookEntity> {
    return this.repository.save(entity);
  }

  find(id: string, mode: Mode): Promise<WebhookEntity | null> {
    return this.repository.findOneBy({ id, mode });
  }

  list(mode: Mode, params: ListParams, status?: WebhookStatus): Promise<KeysetPage<WebhookEntity>> {
    const query = this.repository.createQueryBuilder('w').where('w.mode = :mode', { mode });
    if (status) query.andWhere('w.status = :status', { status });
    return keysetPage(query, 'w.id', params);
  }

  async save(entity: WebhookEntity): Promise<WebhookEntity> {
    entity.updatedAt = new Date();
    return this.repository.save(entity);
  }

  /** Its deliveries and their attempt log go with it (ON DELETE CASCADE). */
  async delete(id: string): Promise<void> {
    await this.repository.delete({ id });
  }
}
