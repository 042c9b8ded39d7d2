import { IsOptional, MinLength } from 'class-validator';
import { IsAtMostCharacters } from '../../validation/length-rules';
import { IsPageLimit } from '../../common/list-query.dto';

/** An empty cursor names no address, so it is refused as an empty id is on the other lists, never read as "no cursor". */
const CURSOR_MESSAGE = 'must be an address from a previous page';

/** GET /v1/suppressions: newest first; the cursors are addresses from a previous page. */
export class SuppressionListQueryDto {
  @IsPageLimit()
  limit?: number;

  @IsOptional()
  @MinLength(1, { message: CURSOR_MESSAGE })
  @IsAtMostCharacters(320)
  starting_after?: string;

  @IsOptional()
  @MinLength(1, { message: CURSOR_MESSAGE })
  @IsAtMostCharacters(320)
  ending_before?: string;
}
