import { IsInt, IsOptional, MaxLength, Max, Min } from 'class-validator';
import { Type } from 'class-transformer';

/** GET /v1/suppressions: newest first; the cursors are addresses from a previous page. */
export class SuppressionListQueryDto {
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'must be an integer between 1 and 100' })
  @Min(1, { message: 'must be an integer between 1 and 100' })
  @Max(100, { message: 'must be an integer between 1 and 100' })
  limit?: number;

  @IsOptional()
  @MaxLength(320)
  starting_after?: string;

  @IsOptional()
  @MaxLength(320)
  ending_before?: string;
}
