import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import type { ListParams, Mode } from '@mailroom/contracts';
import { KeysetPage, keysetPage } from '@mailroom/database';
import { ApiKeyEntity } from '../database/entities/api-key.entity';

@Injectable()
export class ApiKeysRepository {
  constructor(@InjectRepository(ApiKeyEntity) private readonly repository: Repository<ApiKeyEntity>) {}

  insert(entity: ApiKeyEntity): Promise<ApiKeyEntity> {
    return this.repository.save(entity);
  }

  findLive(id: string, mode: Mode): Promise<ApiKeyEntity | null> {
    return this.repository.findOneBy({ id, mode, deletedAt: IsNull() });
  }

  findByHash(keyHash: string): Promise<ApiKeyEntity | null> {
    return this.repository.findOneBy({ keyHash, deletedAt: IsNull() });
  }

  list(mode: Mode, params: ListParams): Promise<KeysetPage<ApiKeyEntity>> {
    const query = this.repository.createQueryBuilder('k').where('k.mode = :mode AND k.deleted_at IS NULL', { mode });
    return keysetPage(query, 'k.id', params);
  }

  async update(entity: ApiKeyEntity): Promise<ApiKeyEntity> {
    return this.repository.save(entity);
  }

  async softDelete(id: string, at: Date): Promise<void> {
    await this.repository.update({ id }, { deletedAt: at });
  }

  async markUsed(ids: string[], at: Date): Promise<void> {
    // GREATEST keeps lastUsedAt monotonic when batches from replicas arrive out of order.
    await this.repository.query(
      `UPDATE keys.api_keys SET last_used_at = GREATEST(COALESCE(last_used_at, $2), $2) WHERE id = ANY($1)`,
      [ids, at],
    );
  }
}
