import { IsOptional, Matches } from 'class-validator';
import { ListQueryDto } from '../../common/list-query.dto';
import { IsBeforeTimestampIn, IsIsoTimestamp } from '../../validation/validators';
import { IsOneOf } from '../../validation/is-one-of';
import { IsTagsQuery } from './email-validators';
import { EMAIL_STATUSES } from '../email-limits';
import { ReadAsUtc } from '../../validation/utc-timestamp';
import { plusReadAsSpaceHint } from '../../validation/plus-read-as-space';

const ONE_ADDRESS = /^[^\s@,]+@[^\s@,]+$/;

/** GET /v1/emails. `tags` is comma-separated and every tag must match (ALL). */
export class EmailListQueryDto extends ListQueryDto {
  @IsOptional()
  @IsOneOf(EMAIL_STATUSES)
  status?: string;

  /** One recipient address of the `to` field, compared case-insensitively. */
  @IsOptional()
  @Matches(ONE_ADDRESS, { message: ({ value }) => `must be one email address${plusReadAsSpaceHint(value, (withPlus) => ONE_ADDRESS.test(withPlus))}` })
  to?: string;

  @IsOptional()
  @IsTagsQuery()
  tags?: string;

  /** Inclusive: emails created at or after this time. */
  @IsOptional()
  @ReadAsUtc()
  @IsIsoTimestamp()
  @IsBeforeTimestampIn('to_date')
  from_date?: string;

  /** Exclusive: emails created before this time. */
  @IsOptional()
  @ReadAsUtc()
  @IsIsoTimestamp()
  to_date?: string;
}
