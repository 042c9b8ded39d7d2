import { IsIn, IsOptional } from 'class-validator';
import { DOMAIN_REGIONS, DomainRegion } from '../domain.types';
import { sendingDomainNameProblem } from '../domain-name';
import { stringRule } from '../../validation/validators';

/** Validates a sending domain name with a message that says exactly what is wrong. */
const IsDomainName = () => stringRule('isDomainName', (value) => sendingDomainNameProblem(value) === null, (value) => sendingDomainNameProblem(value) ?? 'is invalid');

export class DomainCreateDto {
  /** Any case and IDN are accepted; the stored name is lower-case punycode. */
  @IsDomainName()
  name: string;

  @IsOptional()
  @IsIn(DOMAIN_REGIONS, { message: `must be one of ${DOMAIN_REGIONS.join(', ')}` })
  region?: DomainRegion;
}
