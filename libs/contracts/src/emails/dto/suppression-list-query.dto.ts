import { IsOptional, MaxLength } from 'class-validator';
import { IsPageLimit } from '../../common/list-query.dto';

/** GET /v1/suppressions: newest first; the cursors are addresses from a previous page. */
export class SuppressionListQueryDto {
  @IsPageLimit()
  limit?: number;

  @IsOptional()
  @MaxLength(320)
  starting_after?: string;

  @IsOptional()
  @MaxLength(320)
  ending_before?: string;
}
