import { IsOptional, IsString, MaxLength } from 'class-validator';
import { IsOneOf } from '../../validation/is-one-of';
import { IsWebhookDescription } from './is-webhook-description';
import { IsWebhookEventList } from './is-webhook-event-list';
import { IsOmittable } from '../../validation/is-omittable';

export class WebhookUpdateDto {
  @IsOmittable()
  @IsString({ message: 'must be a string' })
  @MaxLength(2048, { message: 'must be at most 2048 characters' })
  url?: string;

  @IsOmittable()
  @IsWebhookEventList()
  events?: string[];

  /** null clears it: @IsOptional() lets null through, where @IsOmittable() does not. */
  @IsOptional()
  @IsString({ message: 'must be a string or null' })
  @IsWebhookDescription()
  description?: string | null;

  /** `active` re-enables a disabled webhook and resets failureCount; `failing` is set by deliveries only. */
  @IsOmittable()
  @IsOneOf(['active', 'disabled'])
  status?: 'active' | 'disabled';
}
