import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsString, Length, ValidateIf } from 'class-validator';
import { PERMISSIONS } from '../../auth/permissions';
import { IsFutureTimestamp, IsHostname, IsIpOrCidr } from '../../validation/validators';

/** Every field optional; expiresAt: null removes the expiry. */
export class ApiKeyUpdateDto {
  @IsOptional()
  @IsString()
  @Length(1, 100)
  name?: string;

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

  @ValidateIf((dto: ApiKeyUpdateDto) => dto.expiresAt !== null && dto.expiresAt !== undefined)
  @IsFutureTimestamp()
  expiresAt?: string | null;
}
