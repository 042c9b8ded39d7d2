import { IsOptional, IsString, MaxLength } from 'class-validator';
import { IsWebhookDescription } from './is-webhook-description';
import { IsWebhookEventList } from './is-webhook-event-list';

/** Shape only; the dispatcher checks the URL (scheme, SSRF) and each event kind, naming `events[i]`. */
export class WebhookCreateDto {
  @IsString({ message: 'must be a string' })
  @MaxLength(2048, { message: 'must be at most 2048 characters' })
  url: string;

  @IsWebhookEventList()
  events: string[];

  @IsOptional()
  @IsString({ message: 'must be a string' })
  @IsWebhookDescription()
  description?: string;
}
