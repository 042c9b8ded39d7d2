import type { ListEnvelope, ListParams } from '../common/list';
import type { RequestContext } from '../common/request-context';
import type { SuppressionReasonValue } from './email-limits';

export interface SuppressionResponse {
  object: 'suppression';
  email: string;
  reason: SuppressionReasonValue;
  details: string | null;
  createdAt: string;
}

export type SuppressionList = ListEnvelope<SuppressionResponse>;

export interface SuppressionDeletedResponse {
  object: 'suppression';
  email: string;
  deleted: true;
}

export interface SuppressionCreatePayload {
  ctx: RequestContext;
  input: { email: string; reason?: SuppressionReasonValue; details?: string };
}
export interface SuppressionByEmailPayload {
  ctx: RequestContext;
  email: string;
}
/** Cursors are addresses from a previous page. */
export interface SuppressionListPayload {
  ctx: RequestContext;
  params: ListParams;
}
