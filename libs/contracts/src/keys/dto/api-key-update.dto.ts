import { IsArray, IsOptional, IsString } from 'class-validator';
import { HasAtMostItems, IsCharactersBetween } from '../../validation/length-rules';
import { IsOneOf } from '../../validation/is-one-of';
import { IsOmittable } from '../../validation/is-omittable';
import { PERMISSIONS } from '../../auth/permissions';
import { IsFutureTimestamp, IsIpOrCidr, IsNotBlank } from '../../validation/validators';
import { IsEachHostname } from '../../domains/domain-name';
import { ReadAsUtc } from '../../validation/utc-timestamp';

/** Every field optional; expiresAt: null removes the expiry, and null is refused for the others. */
export class ApiKeyUpdateDto {
  @IsOmittable()
  @IsString()
  @IsCharactersBetween(1, 100)
  @IsNotBlank()
  name?: string;

  @IsOmittable()
  @IsArray()
  @HasAtMostItems(PERMISSIONS.length, 'permissions')
  @IsOneOf(PERMISSIONS, { each: true })
  permissions?: string[];

  @IsOmittable()
  @IsArray()
  @HasAtMostItems(100, 'domains')
  @IsEachHostname()
  domainRestrictions?: string[];

  @IsOmittable()
  @IsArray()
  @HasAtMostItems(100, 'addresses or ranges')
  @IsIpOrCidr({ each: true })
  ipRestrictions?: string[];

  /** null removes the expiry: @IsOptional() lets null through, where @IsOmittable() does not. */
  @IsOptional()
  @ReadAsUtc()
  @IsFutureTimestamp()
  expiresAt?: string | null;
}
