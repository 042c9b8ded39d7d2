import { ArrayMaxSize, IsArray, IsOptional, IsString, Length } from 'class-validator';
import { IsOneOf } from '../../validation/is-one-of';
import { PERMISSIONS } from '../../auth/permissions';
import { IsFutureTimestamp, IsHostname, IsIpOrCidr } from '../../validation/validators';
import type { Mode } from '../../common/request-context';
import { ReadAsUtc } from '../../validation/utc-timestamp';

export class ApiKeyCreateDto {
  @IsString()
  @Length(1, 100)
  name: string;

  /** Defaults to the caller's mode; a test key can only create test keys. */
  @IsOptional()
  @IsOneOf(['live', 'test'])
  mode?: Mode;

  /** Defaults to the caller's own permissions. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(PERMISSIONS.length)
  @IsOneOf(PERMISSIONS, { each: true })
  permissions?: string[];

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsHostname({ each: true })
  domainRestrictions?: string[];

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsIpOrCidr({ each: true })
  ipRestrictions?: string[];

  @IsOptional()
  @ReadAsUtc()
  @IsFutureTimestamp()
  expiresAt?: string | null;
}
