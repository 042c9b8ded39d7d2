import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { DkimKeyEntity } from '../database/entities/dkim-key.entity';
import type { DomainEntity } from '../database/entities/domain.entity';
import { FOUND_TTL_MS } from '../dkim-zone/dkim-key-cache';
import { DomainSettings } from '../domains/domain-settings';
import { DomainVerifier } from '../verification/domain-verifier';
import { backoffDelay, CheckTrigger } from '../verification/domain-transitions';
import type { RecordOutcome } from '../verification/verification-rules';
import { DkimKeysRepository } from './dkim-keys.repository';

/**
 * How long a replaced key stays published: mail signed with it may still be queued at a receiver, or retried by
 * one, and be verified days after it was sent; a week covers the usual retry periods (RFC 5321 §4.5.4.1: 4–5 days).
 */
export const RETIRING_KEY_KEPT_MS = 7 * 24 * 60 * 60_000;

/** The pending key a check looked up, and what it found at the key's selector. */
export interface RotationLookup {
  pending: DkimKeyEntity;
  outcome: RecordOutcome;
}

/** What a check did with the domain's rotation. */
export interface RotationSettled {
  /** The key that stopped signing, when this check promoted the pending one. */
  promoted: { previousSelector: string; retireAfter: Date } | null;
  /** When the pending CNAME is to be looked for again; null when no rotation is pending any more. */
  nextCheckAt: Date | null;
}

const NOTHING: RotationSettled = { promoted: null, nextCheckAt: null };

/**
 * When every domains replica answers the pending key: each keeps a domain's keys for FOUND_TTL_MS, so one that read
 * them just before the key was made answers NXDOMAIN for its name until then. Promoted earlier, mail signed with it
 * could reach a receiver whose query lands on such a replica and fail DKIM.
 */
function answeredEverywhereAt(pending: Pick<DkimKeyEntity, 'createdAt'>): Date {
  return new Date(pending.createdAt.getTime() + FOUND_TTL_MS);
}

/**
 * The second half of a rotation: every check of the domain (verify and the background) also looks for the pending
 * key's CNAME, by the rule the active one is checked by, and once it is there the pending key becomes the active one
 * (on the domain row, so signing, the resealer and sender identities read it as before) and the key it replaces is
 * retiring: published for RETIRING_KEY_KEPT_MS more, then purged (DkimKeysRepository.retireDue).
 */
@Injectable()
export class DkimPromotion {
  constructor(
    private readonly verifier: DomainVerifier,
    private readonly dkimKeys: DkimKeysRepository,
    private readonly settings: DomainSettings,
  ) {}

  async lookUp(domain: Pick<DomainEntity, 'id' | 'name'>): Promise<RotationLookup | null> {
    const pending = await this.dkimKeys.findPending(domain.id);
    if (!pending?.publicKey) return null;
    return { pending, outcome: await this.verifier.checkDkimKey(domain, { selector: pending.selector, publicKey: pending.publicKey }) };
  }

  /**
   * Under the domain row's lock, with the check's answers: promotes the pending key when its CNAME was found (and it
   * is still the key looked up: a rotation repeated meanwhile made another, whose record these answers did not see)
   * and every domains replica answers the key (see answeredEverywhereAt); else counts a background look and says when
   * the next is due, on DOMAIN_RECHECK_SCHEDULE (the last step repeats: a rotation waits for its CNAME as long as its
   * owner takes), or when the found key is answered everywhere, if that is sooner.
   */
  async settle(manager: EntityManager, domain: DomainEntity, lookup: RotationLookup | null, trigger: CheckTrigger, now: Date): Promise<RotationSettled> {
    const pending = await this.dkimKeys.findPending(domain.id, manager);
    if (!pending) return NOTHING;
    const current = lookup !== null && lookup.pending.id === pending.id && lookup.pending.publicKey === pending.publicKey;
    const found = current && lookup.outcome.result === 'pass';
    const everywhereAt = answeredEverywhereAt(pending);
    if (found && now >= everywhereAt) return { promoted: await this.promote(manager, domain, pending, now), nextCheckAt: null };
    let attempts = pending.checkAttempts;
    if (current && trigger === 'background') {
      await this.dkimKeys.countCheck(manager, pending);
      attempts += 1;
    }
    const next = now.getTime() + backoffDelay(this.settings.schedule.recheckSchedule, attempts);
    return { promoted: null, nextCheckAt: new Date(found ? Math.min(next, everywhereAt.getTime()) : next) };
  }

  private async promote(manager: EntityManager, domain: DomainEntity, pending: DkimKeyEntity, now: Date): Promise<RotationSettled['promoted']> {
    const previousSelector = domain.dkimSelector;
    const retireAfter = new Date(now.getTime() + RETIRING_KEY_KEPT_MS);
    await this.dkimKeys.retireReplaced(manager, pending, { selector: previousSelector, publicKey: domain.dkimPublicKey, privateKeySealed: domain.dkimPrivateKeySealed }, now, retireAfter);
    // dkimStatus: the active DKIM record is now the one just found (a check that met a DNS failure elsewhere changes no sub-status).
    Object.assign(domain, {
      dkimSelector: pending.selector,
      dkimPublicKey: pending.publicKey!,
      dkimPrivateKeySealed: pending.privateKeySealed!,
      dkimStatus: 'verified',
    } satisfies Partial<DomainEntity>);
    return { previousSelector, retireAfter };
  }
}
