import { IsString } from 'class-validator';
import { ReadAsUtc } from '../../validation/utc-timestamp';

/** PATCH /v1/emails/{id}: only the time of a scheduled email can change. */
export class EmailRescheduleDto {
  @ReadAsUtc()
  @IsString()
  scheduledAt: string;
}
