import { IsString } from 'class-validator';

/** PATCH /v1/emails/{id}: only the time of a scheduled email can change. */
export class EmailRescheduleDto {
  @IsString()
  scheduledAt: string;
}
