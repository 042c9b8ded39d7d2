import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';

/** POST /v1/suppressions. Bounces and complaints are added by the service itself; callers usually add `manual`. */
export class SuppressionCreateDto {
  @IsString()
  @MaxLength(320)
  email: string;

  @IsOptional()
  @IsIn(['manual', 'unsubscribe', 'complaint', 'bounce'], { message: 'must be one of manual, unsubscribe, complaint, bounce' })
  reason?: 'manual' | 'unsubscribe' | 'complaint' | 'bounce';

  @IsOptional()
  @IsString()
  @MaxLength(1000)
  details?: string;
}
