import { IsIn, IsOptional } from 'class-validator';
import { ListQueryDto } from '../../common/list-query.dto';
import { DOMAIN_STATUSES, DomainStatus } from '../domain.types';

export class DomainListQueryDto extends ListQueryDto {
  @IsOptional()
  @IsIn(DOMAIN_STATUSES, { message: `must be one of ${DOMAIN_STATUSES.join(', ')}` })
  status?: DomainStatus;
}
