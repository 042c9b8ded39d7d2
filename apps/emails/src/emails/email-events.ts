import type { NewEvent } from '@mailroom/outbox';
import { EmailEntity } from '../database/entities/email.entity';

/** Status changes this part of the emails service announces; delivery adds sent/delivered/bounced/failed. */
export type EmailApiEventType = 'email.scheduled' | 'email.queued' | 'email.cancelled' | 'email.suppressed';

/** The `reason` of an email.suppressed for one recipient, at acceptance or at delivery. */
export const SUPPRESSION_LIST_REASON = 'the address is on the suppression list';

/** Every email event carries the same core, plus fields of its kind. */
export function emailEvent(type: EmailApiEventType, email: EmailEntity, extra: Record<string, unknown> = {}): NewEvent {
  return {
    type,
    mode: email.mode,
    data: { emailId: email.id, from: email.fromAddress, to: email.to, subject: email.subject, tags: email.tags, ...extra },
  };
}
