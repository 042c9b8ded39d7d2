import { ArrayMaxSize, IsArray, IsOptional, IsString, Length } from 'class-validator';
import { IsOneOf } from '../../validation/is-one-of';
import { IsOmittable } from '../../validation/is-omittable';
import { PERMISSIONS } from '../../auth/permissions';
import { IsFutureTimestamp, IsHostname, IsIpOrCidr } from '../../validation/validators';
import { ReadAsUtc } from '../../validation/utc-timestamp';

/** Every field optional; expiresAt: null removes the expiry, and null is refused for the others. */
export class ApiKeyUpdateDto {
  @IsOmittable()
  @IsString()
  @Length(1, 100)
  name?: string;

  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(PERMISSIONS.length)
  @IsOneOf(PERMISSIONS, { each: true })
  permissions?: string[];

  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(100)
  @IsHostname({ each: true })
  domainRestrictions?: string[];

  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(100)
  @IsIpOrCidr({ each: true })
  ipRestrictions?: string[];

  /** null removes the expiry: @IsOptional() lets null through, where @IsOmittable() does not. */
  @IsOptional()
  @ReadAsUtc()
  @IsFutureTimestamp()
  expiresAt?: string | null;
}
