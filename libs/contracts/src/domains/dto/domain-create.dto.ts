import { IsOptional } from 'class-validator';
import { IsOneOf } from '../../validation/is-one-of';
import { DOMAIN_REGIONS, DomainRegion } from '../domain.types';
import { IsDomainNameBy, sendingDomainNameProblem } from '../domain-name';

export class DomainCreateDto {
  /** Any case and IDN are accepted; the stored name is lower-case punycode. */
  @IsDomainNameBy(sendingDomainNameProblem)
  name: string;

  @IsOptional()
  @IsOneOf(DOMAIN_REGIONS)
  region?: DomainRegion;
}
