import { Injectable } from '@nestjs/common';
import { DkimKeyCache } from '../dkim-zone/dkim-key-cache';
import { DkimKeysRepository } from './dkim-keys.repository';

/**
 * Unpublishes retiring keys past their RETIRING_KEY_KEPT_MS, as part of the background checks' rounds (RecheckScheduler):
 * one indexed UPDATE that finds nothing almost every time. This replica answers NXDOMAIN for them at once, others
 * within the key cache's minute.
 */
@Injectable()
export class RetiredKeysPurge {
  constructor(
    private readonly dkimKeys: DkimKeysRepository,
    private readonly keyCache: DkimKeyCache,
  ) {}

  async run(now = new Date()): Promise<number> {
    const domainIds = await this.dkimKeys.retireDue(now);
    for (const id of domainIds) this.keyCache.forget(id);
    return domainIds.length;
  }
}
