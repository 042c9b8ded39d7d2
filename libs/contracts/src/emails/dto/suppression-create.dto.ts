import { IsOptional, IsString } from 'class-validator';
import { IsAtMostCharacters } from '../../validation/length-rules';
import { IsOneOf } from '../../validation/is-one-of';

/** POST /v1/suppressions. Bounces and complaints are added by the service itself; callers usually add `manual`. */
export class SuppressionCreateDto {
  @IsString()
  @IsAtMostCharacters(320)
  email: string;

  @IsOptional()
  @IsOneOf(['manual', 'unsubscribe', 'complaint', 'bounce'])
  reason?: 'manual' | 'unsubscribe' | 'complaint' | 'bounce';

  @IsOptional()
  @IsString()
  @IsAtMostCharacters(1000)
  details?: string;
}
