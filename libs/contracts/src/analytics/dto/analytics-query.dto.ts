import { IsIn, IsOptional, Matches } from 'class-validator';
import { IsIsoTimestamp } from '../../validation/validators';
import { domainNameProblem, IsDomainNameBy } from '../../domains/domain-name';
import { ReadAsUtc } from '../../validation/utc-timestamp';

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
  @IsIn(['hour', 'day'])
  interval?: 'hour' | 'day';

  /** Any case, Unicode or punycode: counters are kept under the lower-case punycode name. */
  @IsOptional()
  @IsDomainNameBy(domainNameProblem)
  domain?: string;

  /** Comma-separated; see the README for how several tags add up. */
  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{1,256}(,[A-Za-z0-9_-]{1,256}){0,19}$/, { message: 'must be up to 20 comma-separated tags of A-Z a-z 0-9 _ -' })
  tags?: string;
}
