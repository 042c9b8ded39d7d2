import { IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { ReadAsDecimalInteger } from '../validation/decimal-integer';

const LIMIT_MESSAGE = 'must be an integer between 1 and 100';

/** The ULID part of every listed id (`email_01J…`): Crockford base32, 26 characters. */
export const ULID_PATTERN = '[0-9A-HJKMNP-TV-Z]{26}';
const LISTED_ID = new RegExp(`^[a-z]+_${ULID_PATTERN}$`);

/** The `limit` of every list endpoint: decimal digits only (no `0x10`, `1e1` or leading space), 1 to 100, optional. */
export function IsPageLimit(): PropertyDecorator {
  const stack = [IsOptional(), ReadAsDecimalInteger(), IsInt({ message: LIMIT_MESSAGE }), Min(1, { message: LIMIT_MESSAGE }), Max(100, { message: LIMIT_MESSAGE })];
  // Bottom-up, as TypeScript applies a stack written above a field: the OpenAPI schema merges the rules in that order (Min's type: number would override IsInt's integer).
  return (target, property) => [...stack].reverse().forEach((decorate) => decorate(target, property));
}

/** limit, starting_after and ending_before, shared by every list endpoint. */
export class ListQueryDto {
  @IsPageLimit()
  limit?: number;

  @IsOptional()
  @Matches(LISTED_ID, { message: 'must be an id from a previous page' })
  starting_after?: string;

  @IsOptional()
  @Matches(LISTED_ID, { message: 'must be an id from a previous page' })
  ending_before?: string;
}
