import { ArrayMaxSize, IsArray, IsOptional, IsString, MaxLength } from 'class-validator';

/** Shape only; the dispatcher checks the URL (scheme, SSRF) and each event kind, naming `events[i]`. */
export class WebhookCreateDto {
  @IsString({ message: 'must be a string' })
  @MaxLength(2048, { message: 'must be at most 2048 characters' })
  url: string;

  @IsArray({ message: 'must be an array of event kinds, e.g. ["email.delivered"] or ["*"]' })
  @ArrayMaxSize(50, { message: 'must list at most 50 event kinds' })
  @IsString({ each: true, message: 'must be an array of strings' })
  events: string[];

  @IsOptional()
  @IsString({ message: 'must be a string' })
  @MaxLength(500, { message: 'must be at most 500 characters' })
  description?: string;
}
