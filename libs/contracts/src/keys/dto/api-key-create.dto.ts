import { IsArray, IsOptional, IsString } from 'class-validator';
import { HasAtMostItems, IsCharactersBetween } from '../../validation/length-rules';
import { IsOneOf } from '../../validation/is-one-of';
import { PERMISSIONS } from '../../auth/permissions';
import { IsFutureTimestamp, IsIpOrCidr, IsNotBlank } from '../../validation/validators';
import { IsEachHostname } from '../../domains/domain-name';
import type { Mode } from '../../common/request-context';
import { ReadAsUtc } from '../../validation/utc-timestamp';

export class ApiKeyCreateDto {
  @IsString()
  @IsCharactersBetween(1, 100)
  @IsNotBlank()
  name: string;

  /** Defaults to the caller's mode; a test key can only create test keys. */
  @IsOptional()
  @IsOneOf(['live', 'test'])
  mode?: Mode;

  /** Defaults to the caller's own permissions. */
  @IsOptional()
  @IsArray()
  @HasAtMostItems(PERMISSIONS.length, 'permissions')
  @IsOneOf(PERMISSIONS, { each: true })
  permissions?: string[];

  @IsOptional()
  @IsArray()
  @HasAtMostItems(100, 'domains')
  @IsEachHostname()
  domainRestrictions?: string[];

  @IsOptional()
  @IsArray()
  @HasAtMostItems(100, 'addresses or ranges')
  @IsIpOrCidr({ each: true })
  ipRestrictions?: string[];

  @IsOptional()
  @ReadAsUtc()
  @IsFutureTimestamp()
  expiresAt?: string | null;
}
