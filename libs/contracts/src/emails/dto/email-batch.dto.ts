import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, ValidateNested } from 'class-validator';
import { EMAIL_LIMITS } from '../email-limits';
import { EmailSendDto } from './email-send.dto';

/** POST /v1/emails/batch: `{ "emails": [...] }`, or a bare array, which the gateway wraps. */
export class EmailBatchDto {
  @IsArray()
  @ArrayMinSize(1, { message: `must hold 1 to ${EMAIL_LIMITS.batchMax} emails` })
  @ArrayMaxSize(EMAIL_LIMITS.batchMax, { message: `must hold 1 to ${EMAIL_LIMITS.batchMax} emails` })
  @ValidateNested({ each: true })
  @Type(() => EmailSendDto)
  emails: EmailSendDto[];
}
