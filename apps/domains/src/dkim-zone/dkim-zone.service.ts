import { Injectable } from '@nestjs/common';
import type { DkimZoneExportReply } from '@mailroom/contracts';
import { DomainSettings } from '../domains/domain-settings';
import { DomainsRepository } from '../domains/domains.repository';
import { exportDkimZone } from './zone-export';

@Injectable()
export class DkimZoneService {
  constructor(
    private readonly repository: DomainsRepository,
    private readonly settings: DomainSettings,
  ) {}

  async exportZone(): Promise<DkimZoneExportReply> {
    return { zoneFile: exportDkimZone(this.settings.dkimZone, this.settings.zoneNameServers, await this.repository.allKeys()) };
  }
}
