import { DeletedResponse } from '../common/list';
import {
  ApiKeyByIdPayload,
  ApiKeyCreatedResponse,
  ApiKeyCreatePayload,
  ApiKeyDeletePayload,
  ApiKeyList,
  ApiKeyListPayload,
  ApiKeyResponse,
  ApiKeysUsedEvent,
  ApiKeyUpdatePayload,
  ApiKeyVerifyPayload,
  ApiKeyVerifyReply,
} from './api-key.types';

/** Request-reply subjects of the keys service. Renaming one is a migration: old replicas stop answering. */
export const KeysSubjects = {
  create: 'keys.api-key.create',
  list: 'keys.api-key.list',
  get: 'keys.api-key.get',
  update: 'keys.api-key.update',
  delete: 'keys.api-key.delete',
  verify: 'keys.api-key.verify',
  /**
   * The gateway's batch of uses (lastUsedAt), answered once written so the
   * gateway can send again what was not: the event `api-key.used` it replaces
   * was lost whenever no keys replica listened (a restart) or Postgres refused it.
   */
  recordUses: 'keys.api-key.record-uses',
} as const;

/** Fire-and-forget subjects. */
export const KeysEvents = {
  /** Queue-grouped: one keys replica records lastUsedAt for a batch. Sent only by gateways of an earlier release (see KeysSubjects.recordUses). */
  used: 'api-key.used',
  /** Broadcast without a queue group: every gateway replica evicts its cache entry. */
  changed: 'api-key.changed',
} as const;

export interface KeysRpc {
  [KeysSubjects.create]: { payload: ApiKeyCreatePayload; reply: ApiKeyCreatedResponse };
  [KeysSubjects.list]: { payload: ApiKeyListPayload; reply: ApiKeyList };
  [KeysSubjects.get]: { payload: ApiKeyByIdPayload; reply: ApiKeyResponse };
  [KeysSubjects.update]: { payload: ApiKeyUpdatePayload; reply: ApiKeyResponse };
  [KeysSubjects.delete]: { payload: ApiKeyDeletePayload; reply: DeletedResponse<'api_key'> };
  [KeysSubjects.verify]: { payload: ApiKeyVerifyPayload; reply: ApiKeyVerifyReply };
  [KeysSubjects.recordUses]: { payload: ApiKeysUsedEvent; reply: { recorded: number } };
}
