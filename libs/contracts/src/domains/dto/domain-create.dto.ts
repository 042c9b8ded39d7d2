import { IsIn, IsOptional } from 'class-validator';
import { DOMAIN_REGIONS, DomainRegion } from '../domain.types';
import { IsDomainNameBy, sendingDomainNameProblem } from '../domain-name';

export class DomainCreateDto {
  /** Any case and IDN are accepted; the stored name is lower-case punycode. */
  @IsDomainNameBy(sendingDomainNameProblem)
  name: string;

  @IsOptional()
  @IsIn(DOMAIN_REGIONS, { message: `must be one of ${DOMAIN_REGIONS.join(', ')}` })
  region?: DomainRegion;
}
