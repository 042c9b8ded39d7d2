import { IsIn, IsOptional, registerDecorator } from 'class-validator';
import { DOMAIN_REGIONS, DomainRegion } from '../domain.types';
import { domainNameProblem } from '../domain-name';

/** Validates a sending domain name with a message that says exactly what is wrong. */
function IsDomainName() {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isDomainName',
      target: target.constructor,
      propertyName,
      options: { message: (args) => domainNameProblem(args.value) ?? 'is invalid' },
      validator: { validate: (value: unknown) => domainNameProblem(value) === null },
    });
}

export class DomainCreateDto {
  /** Any case and IDN are accepted; the stored name is lower-case punycode. */
  @IsDomainName()
  name: string;

  @IsOptional()
  @IsIn(DOMAIN_REGIONS, { message: `must be one of ${DOMAIN_REGIONS.join(', ')}` })
  region?: DomainRegion;
}
