import { DomainError } from '@mailroom/errors';
import { ListParams } from './list';
import { ListQueryDto } from './list-query.dto';

export const DEFAULT_LIST_LIMIT = 10;

/** The prefix of each listed resource's ids (`email_01J…`), which its cursors must carry. */
export const LIST_ID_PREFIXES = {
  apiKey: 'key_',
  domain: 'dom_',
  email: 'email_',
  webhook: 'wh_',
  webhookDelivery: 'whd_',
} as const;

export type ListIdPrefix = (typeof LIST_ID_PREFIXES)[keyof typeof LIST_ID_PREFIXES];

/**
 * A cursor is compared with the ids of the list it pages, so the id of another
 * resource names no place in it: `GET /v1/emails?starting_after=key_…` sorted
 * after every email id and answered a first page as if it were the next one,
 * and `GET /v1/api-keys?starting_after=email_…` answered an empty page that
 * looked like the end. Null for lists whose cursors are not ids (suppressions
 * page by address).
 */
function assertCursorOf(field: 'starting_after' | 'ending_before', cursor: string | undefined, idPrefix: ListIdPrefix | null): void {
  if (cursor === undefined || idPrefix === null || cursor.startsWith(idPrefix)) return;
  throw DomainError.validation(field, `must be an id of this list (${idPrefix}…) from a previous page`);
}

export function toListParams(query: ListQueryDto, idPrefix: ListIdPrefix | null): ListParams {
  if (query.starting_after && query.ending_before) {
    throw DomainError.validation('ending_before', 'cannot be combined with starting_after');
  }
  assertCursorOf('starting_after', query.starting_after, idPrefix);
  assertCursorOf('ending_before', query.ending_before, idPrefix);
  return { limit: query.limit ?? DEFAULT_LIST_LIMIT, startingAfter: query.starting_after, endingBefore: query.ending_before };
}
