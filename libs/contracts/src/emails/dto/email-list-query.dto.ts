import { IsIn, IsOptional, Matches } from 'class-validator';
import { ListQueryDto } from '../../common/list-query.dto';
import { IsBeforeTimestampIn, IsIsoTimestamp } from '../../validation/validators';
import { EMAIL_STATUSES } from '../email-limits';
import { ReadAsUtc } from '../../validation/utc-timestamp';

/** GET /v1/emails. `tags` is comma-separated and every tag must match (ALL). */
export class EmailListQueryDto extends ListQueryDto {
  @IsOptional()
  @IsIn(EMAIL_STATUSES, { message: `must be one of ${EMAIL_STATUSES.join(', ')}` })
  status?: string;

  /** One recipient address of the `to` field, compared case-insensitively. */
  @IsOptional()
  @Matches(/^[^\s@,]+@[^\s@,]+$/, { message: 'must be one email address' })
  to?: string;

  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{1,256}(,[A-Za-z0-9_-]{1,256}){0,19}$/, {
    message: 'must be 1 to 20 comma-separated tags of A-Z, a-z, 0-9, _ and -',
  })
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
