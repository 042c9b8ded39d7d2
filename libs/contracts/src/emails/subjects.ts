import { DOMAIN_USAGE_SUBJECT, DomainUsagePayload, DomainUsageReply } from './domain-usage';
import {
  EmailBatchPayload,
  EmailBatchResponse,
  EmailByIdPayload,
  EmailList,
  EmailListPayload,
  EmailReschedulePayload,
  EmailResponse,
  EmailSendPayload,
} from './email.types';
import {
  SuppressionByEmailPayload,
  SuppressionCreatePayload,
  SuppressionDeletedResponse,
  SuppressionList,
  SuppressionListPayload,
  SuppressionResponse,
} from './suppression.types';

/** Request-reply subjects of the emails service. Renaming one is a migration: old replicas stop answering. */
export const EmailsSubjects = {
  send: 'emails.email.send',
  batch: 'emails.email.batch',
  list: 'emails.email.list',
  get: 'emails.email.get',
  cancel: 'emails.email.cancel',
  reschedule: 'emails.email.reschedule',
  suppressionList: 'emails.suppression.list',
  suppressionCreate: 'emails.suppression.create',
  suppressionDelete: 'emails.suppression.delete',
  domainUsage: DOMAIN_USAGE_SUBJECT,
} as const;

export interface EmailsRpc {
  [EmailsSubjects.send]: { payload: EmailSendPayload; reply: EmailResponse };
  [EmailsSubjects.batch]: { payload: EmailBatchPayload; reply: EmailBatchResponse };
  [EmailsSubjects.list]: { payload: EmailListPayload; reply: EmailList };
  [EmailsSubjects.get]: { payload: EmailByIdPayload; reply: EmailResponse };
  [EmailsSubjects.cancel]: { payload: EmailByIdPayload; reply: EmailResponse };
  [EmailsSubjects.reschedule]: { payload: EmailReschedulePayload; reply: EmailResponse };
  [EmailsSubjects.suppressionList]: { payload: SuppressionListPayload; reply: SuppressionList };
  [EmailsSubjects.suppressionCreate]: { payload: SuppressionCreatePayload; reply: SuppressionResponse };
  [EmailsSubjects.suppressionDelete]: { payload: SuppressionByEmailPayload; reply: SuppressionDeletedResponse };
  [EmailsSubjects.domainUsage]: { payload: DomainUsagePayload; reply: DomainUsageReply };
}
