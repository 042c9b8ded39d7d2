import { IsIn, IsOptional } from 'class-validator';
import { ListQueryDto } from '../../common/list-query.dto';
import { DELIVERY_STATUSES, DeliveryStatus, WEBHOOK_STATUSES, WebhookStatus } from '../webhook.types';

export class WebhookListQueryDto extends ListQueryDto {
  @IsOptional()
  @IsIn(WEBHOOK_STATUSES, { message: `must be one of ${WEBHOOK_STATUSES.join(', ')}` })
  status?: WebhookStatus;
}

export class DeliveryListQueryDto extends ListQueryDto {
  @IsOptional()
  @IsIn(DELIVERY_STATUSES, { message: `must be one of ${DELIVERY_STATUSES.join(', ')}` })
  status?: DeliveryStatus;
}
