import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsString, Length } from 'class-validator';
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
  @IsIn(['live', 'test'])
  mode?: Mode;

  /** Defaults to the caller's own permissions. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(PERMISSIONS.length)
  @IsIn(PERMISSIONS, { each: true, message: `each value must be one of ${PERMISSIONS.join(', ')}` })
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
