import type { ApiKeyCreatedResponse } from '@mailroom/contracts';
import { serviceDataSourceOptions } from '@mailroom/database';
import { DataSource } from 'typeorm';
import { issueApiKey, IssueInput } from '../apps/keys/src/api-keys/api-key-issuer';
import { KEYS_SCHEMA } from '../apps/keys/src/database/data-source';
import { ApiKeyEntity } from '../apps/keys/src/database/entities/api-key.entity';

/** Creates a key straight in the keys schema: for the first start, the CLI and the e2e harness. */
export async function issueKeyDirectly(databaseUrl: string, input: IssueInput): Promise<ApiKeyCreatedResponse> {
  const dataSource = new DataSource(serviceDataSourceOptions(databaseUrl, KEYS_SCHEMA, { size: 1 }));
  await dataSource.initialize();
  try {
    return await issueApiKey(input, (entity) => dataSource.getRepository(ApiKeyEntity).save(entity));
  } finally {
    await dataSource.destroy();
  }
}

export async function countKeys(databaseUrl: string): Promise<number> {
  const dataSource = new DataSource(serviceDataSourceOptions(databaseUrl, KEYS_SCHEMA, { size: 1 }));
  await dataSource.initialize();
  try {
    return await dataSource.getRepository(ApiKeyEntity).count();
  } finally {
    await dataSource.destroy();
  }
}
