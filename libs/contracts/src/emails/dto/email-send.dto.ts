import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsOptional, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';
import { EMAIL_LIMITS, TAG_PATTERN } from '../email-limits';
import { IsFlatStringMap, IsStringOrStringArray } from './email-validators';
import { ReadAsUtc } from '../../validation/utc-timestamp';
import { refusingItems } from '../../validation/validate-dto';
import { HasAtMostItems, IsCharactersBetween } from '../../validation/length-rules';

const NO_CR_LF = /^[^\r\n]*$/;
// A name, not a path: receiving clients would strip the directories anyway, and control characters (C0, DEL and C1) have no place in a header.
// Nor have the bidirectional formatting marks, whose one use in a file name is to show "invoice\u202Efdp.exe" as "invoiceexe.pdf";
// right-to-left names need none of them, since their letters carry their own direction.
const FILE_NAME = /^[^/\\\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]*$/;

export class EmailAttachmentDto {
  @IsString()
  @IsCharactersBetween(1, 255)
  @Matches(FILE_NAME, { message: 'must be a file name without a path: no / or \\, no control characters and no bidirectional formatting characters' })
  filename: string;

  /** Base64; checked and measured by the emails service. */
  @IsString()
  content: string;

  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*$/, { message: 'must be a MIME type such as image/png' })
  contentType?: string;

  /** Referenced from the HTML as cid:<contentId> for an inline image. */
  @IsOptional()
  @IsString()
  @IsCharactersBetween(1, 255)
  // It goes out as Content-ID: <contentId>, a msg-id (RFC 5322 §3.6.4): atext, dots and @, nothing a parser stops at.
  @Matches(/^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~.@]+$/, { message: "must be letters, digits and !#$%&'*+-/=?^_`{|}~.@ only (it goes out as the part's Content-ID)" })
  contentId?: string;
}

export class EmailTrackingDto {
  @IsOptional()
  @IsBoolean()
  opens?: boolean;

  @IsOptional()
  @IsBoolean()
  clicks?: boolean;
}

/**
 * POST /v1/emails. The shape is checked here (422 naming the field); the
 * emails service checks addresses, headers, base64, sizes and the schedule.
 */
export class EmailSendDto {
  @IsString()
  from: string;

  @IsStringOrStringArray(1, EMAIL_LIMITS.toMax)
  to: string | string[];

  @IsOptional()
  @IsStringOrStringArray(0, EMAIL_LIMITS.ccMax)
  cc?: string | string[];

  @IsOptional()
  @IsStringOrStringArray(0, EMAIL_LIMITS.bccMax)
  bcc?: string | string[];

  @IsOptional()
  @IsStringOrStringArray(0, EMAIL_LIMITS.replyToMax)
  replyTo?: string | string[];

  @IsString()
  @IsCharactersBetween(1, EMAIL_LIMITS.subjectMaxLength)
  @Matches(NO_CR_LF, { message: 'must not contain CR or LF' })
  subject: string;

  @IsOptional()
  @IsString()
  html?: string;

  @IsOptional()
  @IsString()
  text?: string;

  @IsOptional()
  @IsFlatStringMap()
  headers?: Record<string, string>;

  @IsOptional()
  @IsArray()
  @HasAtMostItems(EMAIL_LIMITS.attachmentsMax, 'attachments')
  @ValidateNested({ each: true })
  @Type(() => EmailAttachmentDto)
  attachments?: EmailAttachmentDto[];

  @IsOptional()
  @IsArray()
  @HasAtMostItems(EMAIL_LIMITS.tagsMax, 'tags')
  // Each rule names the tag it refuses (`tags[2]: …`), not the whole list.
  @IsString({ each: true, context: refusingItems((tag) => typeof tag !== 'string'), message: 'must be a string' })
  @MaxLength(EMAIL_LIMITS.tagMaxLength, {
    each: true,
    context: refusingItems((tag) => typeof tag === 'string' && tag.length > EMAIL_LIMITS.tagMaxLength),
    message: `must be at most ${EMAIL_LIMITS.tagMaxLength} characters`,
  })
  @Matches(TAG_PATTERN, { each: true, context: refusingItems((tag) => typeof tag === 'string' && !TAG_PATTERN.test(tag)), message: 'must contain only A-Z, a-z, 0-9, _ and -' })
  tags?: string[];

  @IsOptional()
  @IsFlatStringMap()
  metadata?: Record<string, string>;

  /** ISO 8601, in the future, at most 30 days ahead (checked by the emails service against its clock). */
  @IsOptional()
  @ReadAsUtc()
  @IsString()
  scheduledAt?: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => EmailTrackingDto)
  tracking?: EmailTrackingDto;
}
