import { Inject, Injectable, Logger } from '@nestjs/common';
import type { MailroomConfig } from '@mailroom/config';
import { previousKeyIdsNote, SecretBox, secretBoxFromConfig } from '@mailroom/auth';
import { MAILROOM_CONFIG } from '@mailroom/runtime';
import type { ScheduleSettings } from '../verification/domain-transitions';
import { zoneNameServers } from '../dkim-zone/zone-file';
import type { RecordSettings } from './dns-records';

/** The configuration the domains feature reads, in the shapes its pure functions take. */
@Injectable()
export class DomainSettings {
  readonly records: RecordSettings;
  readonly schedule: ScheduleSettings;
  readonly trackingDomain: string;
  readonly trackingBaseUrl: string;
  readonly dkimZone: string;
  readonly zoneNameServers: string[];
  readonly dnsServers: string[];
  readonly dnsTimeoutMs: number;
  readonly usageTimeoutMs: number;
  readonly secretBox: SecretBox;

  constructor(@Inject(MAILROOM_CONFIG) config: MailroomConfig) {
    this.records = { spfInclude: config.SPF_INCLUDE, dkimZone: config.DKIM_ZONE, dmarcRua: config.DMARC_RUA };
    this.schedule = {
      recheckSchedule: config.DOMAIN_RECHECK_SCHEDULE,
      pendingTimeoutMs: config.DOMAIN_PENDING_TIMEOUT,
      verifiedRecheckMs: config.DOMAIN_VERIFIED_RECHECK_INTERVAL,
      failureConfirmationMs: config.DOMAIN_FAILURE_CONFIRMATION,
    };
    this.trackingBaseUrl = config.TRACKING_BASE_URL.replace(/\/+$/, '');
    this.trackingDomain = new URL(config.TRACKING_BASE_URL).hostname;
    this.dkimZone = config.DKIM_ZONE;
    this.zoneNameServers = zoneNameServers(config.DKIM_ZONE, config.DKIM_ZONE_NS);
    this.dnsServers = config.DNS_SERVERS;
    this.dnsTimeoutMs = config.DNS_TIMEOUT_MS;
    this.usageTimeoutMs = config.DOMAIN_USAGE_TIMEOUT_MS;
    const logger = new Logger(DomainSettings.name);
    this.secretBox = secretBoxFromConfig(config, (message) => logger.warn(message));
    // The emails service opens the DKIM keys this one seals: the two boot lines must show the same id.
    logger.log(`ENCRYPTION_KEY id ${this.secretBox.keyId} seals the DKIM keys sent to the emails service${previousKeyIdsNote(this.secretBox)}`);
  }
}
