import { ListEnvelope, ListParams } from '../common/list';
import { Mode, RequestContext } from '../common/request-context';

export interface ApiKeyResponse {
  id: string;
  object: 'api_key';
  name: string;
  mode: Mode;
  /** Prefix and last four characters, so people can tell keys apart without the secret. */
  keyHint: string;
  permissions: string[];
  domainRestrictions: string[];
  ipRestrictions: string[];
  expiresAt: string | null;
  lastUsedAt: string | null;
  createdAt: string;
}

/** Only the creation response carries the secret. */
export interface ApiKeyCreatedResponse extends ApiKeyResponse {
  key: string;
}

export interface ApiKeyCreateInput {
  name: string;
  mode?: Mode;
  permissions?: string[];
  domainRestrictions?: string[];
  ipRestrictions?: string[];
  expiresAt?: string | null;
}

export type ApiKeyUpdateInput = Partial<Omit<ApiKeyCreateInput, 'mode'>>;

/** What the gateway's guard needs about a key; cached per replica. */
export interface VerifiedApiKey {
  keyId: string;
  mode: Mode;
  permissions: string[];
  domainRestrictions: string[];
  ipRestrictions: string[];
  expiresAt: string | null;
}

export interface ApiKeyCreatePayload {
  ctx: RequestContext;
  caller: VerifiedApiKey;
  input: ApiKeyCreateInput;
}
export interface ApiKeyUpdatePayload {
  ctx: RequestContext;
  caller: VerifiedApiKey;
  id: string;
  input: ApiKeyUpdateInput;
}
export interface ApiKeyByIdPayload {
  ctx: RequestContext;
  id: string;
}
export interface ApiKeyDeletePayload {
  ctx: RequestContext;
  /** Absent only from a gateway of an earlier release, during a rolling upgrade. */
  caller?: VerifiedApiKey;
  id: string;
}
export interface ApiKeyListPayload {
  ctx: RequestContext;
  params: ListParams;
}
export interface ApiKeyVerifyPayload {
  keyHash: string;
}
export interface ApiKeyVerifyReply {
  key: VerifiedApiKey | null;
  /**
   * True when the hash is of a key that was deleted: one that was issued, so
   * sending it guesses nothing and AUTH_FAILURE_LIMIT does not count it.
   * Absent from keys services of an earlier release.
   */
  revoked?: boolean;
}
export interface ApiKeysUsedEvent {
  keyIds: string[];
  /** The latest use in the batch; what a gateway of an earlier release sends alone, as the time of its report. */
  usedAt: string;
  /** Each key's own last use, so lastUsedAt is not the time of the report, up to LAST_USED_FLUSH_MS later. */
  usedAtByKey?: Record<string, string>;
}
export interface ApiKeyChangedEvent {
  keyId: string;
}

export type ApiKeyList = ListEnvelope<ApiKeyResponse>;
