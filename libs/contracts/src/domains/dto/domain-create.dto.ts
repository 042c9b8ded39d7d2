import { IsIn, IsOptional } from 'class-validator';
import { DOMAIN_REGIONS, DomainRegion } from '../domain.types';
import { domainNameProblem } from '../domain-name';
import { stringRule } from '../../validation/validators';

/** Validates a sending domain name with a message that says exactly what is wrong. */
const IsDomainName = () => stringRule('isDomainName', (value) => domainNameProblem(value) === null, (value) => domainNameProblem(value) ?? 'is invalid');

export class DomainCreateDto {
  /** Any case and IDN are accepted; the stored name is lower-case punycode. */
  @IsDomainName()
  name: string;

  @IsOptional()
  @IsIn(DOMAIN_REGIONS, { message: `must be one of ${DOMAIN_REGIONS.join(', ')}` })
  region?: DomainRegion;
}
