import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, ValidateNested } from 'class-validator';
import { EMAIL_LIMITS } from '../email-limits';
import { EmailSendDto } from './email-send.dto';

/** POST /v1/emails/batch: `{ "emails": [...] }`, or a bare array, which the gateway wraps. */
export class EmailBatchDto {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(EMAIL_LIMITS.batchMax)
  @ValidateNested({ each: true })
  @Type(() => EmailSendDto)
  emails: EmailSendDto[];
}
