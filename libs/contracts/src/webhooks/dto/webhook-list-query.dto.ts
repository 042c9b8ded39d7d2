import { IsOptional } from 'class-validator';
import { IsOneOf } from '../../validation/is-one-of';
import { ListQueryDto } from '../../common/list-query.dto';
import { DELIVERY_STATUSES, DeliveryStatus, WEBHOOK_STATUSES, WebhookStatus } from '../webhook.types';

export class WebhookListQueryDto extends ListQueryDto {
  @IsOptional()
  @IsOneOf(WEBHOOK_STATUSES)
  status?: WebhookStatus;
}

export class DeliveryListQueryDto extends ListQueryDto {
  @IsOptional()
  @IsOneOf(DELIVERY_STATUSES)
  status?: DeliveryStatus;
}
