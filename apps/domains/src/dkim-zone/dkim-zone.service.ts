import { Injectable } from '@nestjs/common';
import type { DkimZoneExportReply, RequestContext } from '@mailroom/contracts';
import { canSee } from '../domains/domain-access';
import { DomainSettings } from '../domains/domain-settings';
import { DomainsRepository } from '../domains/domains.repository';
import { exportDkimZone } from './zone-export';

@Injectable()
export class DkimZoneService {
  constructor(
    private readonly repository: DomainsRepository,
    private readonly settings: DomainSettings,
  ) {}

  /**
   * Every key for internal callers (the CLI). A key with domainRestrictions
   * gets the same zone with only its own domains' records, so it learns
   * nothing about other customers' domains.
   */
  async exportZone(ctx?: RequestContext): Promise<DkimZoneExportReply> {
    const keys = (await this.repository.allKeys()).filter((key) => !ctx || canSee(ctx, key.name));
    return { zoneFile: exportDkimZone(this.settings.dkimZone, this.settings.zoneNameServers, keys) };
  }
}
