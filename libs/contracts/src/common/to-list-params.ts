import { DomainError } from '@mailroom/errors';
import { ListParams } from './list';
import { ListQueryDto } from './list-query.dto';

export const DEFAULT_LIST_LIMIT = 10;

export function toListParams(query: ListQueryDto): ListParams {
  if (query.starting_after && query.ending_before) {
    throw DomainError.validation('ending_before', 'cannot be combined with starting_after');
  }
  return { limit: query.limit ?? DEFAULT_LIST_LIMIT, startingAfter: query.starting_after, endingBefore: query.ending_before };
}
