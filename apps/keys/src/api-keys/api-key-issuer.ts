import type { ApiKeyCreatedResponse, Mode } from '@mailroom/contracts';
import { generateApiKey, hashApiKey, keyHint } from '@mailroom/auth';
import { ulid } from '@mailroom/database';
import { ApiKeyEntity } from '../database/entities/api-key.entity';
import { toResponse } from './api-key.mapper';

export interface IssueInput {
  name: string;
  mode: Mode;
  permissions: string[];
  domainRestrictions: string[];
  ipRestrictions: string[];
  expiresAt: string | null;
}

/**
 * Mints a key and the row that stores only its hash. Shared by the API, the
 * bootstrap CLI and the first start, which have no caller to check against.
 */
export async function issueApiKey(
  input: IssueInput,
  insert: (entity: ApiKeyEntity) => Promise<ApiKeyEntity>,
): Promise<ApiKeyCreatedResponse> {
  const secret = generateApiKey(input.mode);
  const entity = Object.assign(new ApiKeyEntity(), {
    id: `key_${ulid()}`,
    name: input.name,
    mode: input.mode,
    keyHash: hashApiKey(secret),
    keyHint: keyHint(secret, input.mode),
    permissions: [...new Set(input.permissions)],
    domainRestrictions: [...new Set(input.domainRestrictions)],
    ipRestrictions: [...new Set(input.ipRestrictions)],
    expiresAt: input.expiresAt ? new Date(input.expiresAt) : null,
    lastUsedAt: null,
    createdAt: new Date(),
    deletedAt: null,
  });
  const saved = await insert(entity);
  return Object.assign(toResponse(saved), { key: secret });
}
