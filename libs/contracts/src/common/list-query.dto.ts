import { IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { Type } from 'class-transformer';

/** limit, starting_after and ending_before, shared by every list endpoint. */
export class ListQueryDto {
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'must be an integer between 1 and 100' })
  @Min(1, { message: 'must be an integer between 1 and 100' })
  @Max(100, { message: 'must be an integer between 1 and 100' })
  limit?: number;

  @IsOptional()
  @Matches(/^[a-z]+_[0-9A-HJKMNP-TV-Z]{26}$/, { message: 'must be an id from a previous page' })
  starting_after?: string;

  @IsOptional()
  @Matches(/^[a-z]+_[0-9A-HJKMNP-TV-Z]{26}$/, { message: 'must be an id from a previous page' })
  ending_before?: string;
}
