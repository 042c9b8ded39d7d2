import { IsOptional } from 'class-validator';
import { IsOneOf } from '../../validation/is-one-of';
import { ListQueryDto } from '../../common/list-query.dto';
import { DOMAIN_STATUSES, DomainStatus } from '../domain.types';

export class DomainListQueryDto extends ListQueryDto {
  @IsOptional()
  @IsOneOf(DOMAIN_STATUSES)
  status?: DomainStatus;
}
