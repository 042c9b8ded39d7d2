import { IsOptional } from 'class-validator';
import { IsIsoTimestamp } from '../../validation/validators';
import { domainNameProblem, IsDomainNameBy } from '../../domains/domain-name';
import { ReadAsUtc } from '../../validation/utc-timestamp';
import { IsOneOf } from '../../validation/is-one-of';
import { IsTagsQuery } from '../../emails/dto/email-validators';

export class AnalyticsQueryDto {
  /** Default: 30 days before to_date. */
  @IsOptional()
  @ReadAsUtc()
  @IsIsoTimestamp()
  from_date?: string;

  /** Default: now. */
  @IsOptional()
  @ReadAsUtc()
  @IsIsoTimestamp()
  to_date?: string;

  @IsOptional()
  @IsOneOf(['hour', 'day'])
  interval?: 'hour' | 'day';

  /** Any case, Unicode or punycode: counters are kept under the lower-case punycode name. */
  @IsOptional()
  @IsDomainNameBy(domainNameProblem)
  domain?: string;

  /** Comma-separated; see the README for how several tags add up. */
  @IsOptional()
  @IsTagsQuery()
  tags?: string;
}
