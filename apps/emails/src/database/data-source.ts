import { ServiceSchema } from '@mailroom/database';
import { EmailEntity, IdempotencyKeyEntity, RecipientEntity, SuppressionEntity } from './entities';
import { CreateEmailsSchema1763800000200 } from './migrations/1763800000200-create-emails-schema';
import { CreateEmailsTables1763800000210 } from './migrations/1763800000210-create-emails-tables';
import { CreateAnalyticsCounters1763800000290 } from './migrations/1763800000290-create-analytics-counters';
import { AddComplainedAt1763800000291 } from './migrations/1763800000291-add-complained-at';
import { CreateEmailCounts1763800000292 } from './migrations/1763800000292-create-email-counts';
import { AddAnalyticsAllDomainsRows1763800000293 } from './migrations/1763800000293-add-analytics-all-domains-rows';
import { LeaveRoomForHotUpdates1763800000294 } from './migrations/1763800000294-leave-room-for-hot-updates';
import { KeepIdempotentAnswersAsSent1763800000295 } from './migrations/1763800000295-keep-idempotent-answers-as-sent';
import { CancelRecipientsWithTheirEmail1763800000296 } from './migrations/1763800000296-cancel-recipients-with-their-email';
import { CountAnalyticsUnderStoredFromDomains1763800000297 } from './migrations/1763800000297-count-analytics-under-stored-from-domains';
import { RecordAppliedReportEvents1763800000298 } from './migrations/1763800000298-record-applied-report-events';
import { RecordSendingDomainDeletions1763800000299 } from './migrations/1763800000299-record-sending-domain-deletions';
import { CreateMtaStsPolicies1763800000300 } from './migrations/1763800000300-create-mta-sts-policies';
import { CreateTlsrptTables1763800000301 } from './migrations/1763800000301-create-tlsrpt-tables';
import { AllowSkippedTlsReports1763800000302 } from './migrations/1763800000302-allow-skipped-tls-reports';
import { KeepRecipientAttemptLogs1763800000303 } from './migrations/1763800000303-keep-recipient-attempt-logs';

export const EMAILS_SCHEMA: ServiceSchema = {
  schema: 'emails',
  entities: [EmailEntity, RecipientEntity, SuppressionEntity, IdempotencyKeyEntity],
  migrations: [CreateEmailsSchema1763800000200, CreateEmailsTables1763800000210, CreateAnalyticsCounters1763800000290, AddComplainedAt1763800000291, CreateEmailCounts1763800000292, AddAnalyticsAllDomainsRows1763800000293, LeaveRoomForHotUpdates1763800000294, KeepIdempotentAnswersAsSent1763800000295, CancelRecipientsWithTheirEmail1763800000296, CountAnalyticsUnderStoredFromDomains1763800000297, RecordAppliedReportEvents1763800000298, RecordSendingDomainDeletions1763800000299, CreateMtaStsPolicies1763800000300, CreateTlsrptTables1763800000301, AllowSkippedTlsReports1763800000302, KeepRecipientAttemptLogs1763800000303],
};
