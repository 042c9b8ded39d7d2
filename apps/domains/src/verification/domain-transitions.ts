import type { DnsRecordPurpose, DomainRecordStatus, DomainStatus } from '@mailroom/contracts';
import { DomainEvents } from '@mailroom/contracts';
import type { DomainCheck } from './verification-rules';

export interface DomainState {
  status: DomainStatus;
  spfStatus: DomainRecordStatus;
  dkimStatus: DomainRecordStatus;
  dmarcStatus: DomainRecordStatus;
  verifiedAt: Date | null;
  failedAt: Date | null;
  /** When the current pending period began: creation, or the verify that revived a failed domain. */
  pendingSince: Date;
  /** When the checks of a verified domain began to find a record missing (see nextState); null while none is. */
  recordsMissingSince: Date | null;
  checkAttempts: number;
  nextCheckAt: Date | null;
}

export interface ScheduleSettings {
  /** Waits between background checks of a pending domain, or of a verified one whose records are missing; the last one repeats. */
  recheckSchedule: number[];
  /** How long a pending domain may stay incomplete, and how long a failed domain that had been verified is still checked. */
  pendingTimeoutMs: number;
  verifiedRecheckMs: number;
  /** How long a verified domain's records must stay missing before it fails. */
  failureConfirmationMs: number;
}

export type CheckTrigger = 'manual' | 'background';

/** When a check ran: its lookups were asked at `askedAt`, and their answers are applied at `now`. */
export interface CheckTimes {
  askedAt: Date;
  now: Date;
}

export interface Transition {
  state: DomainState;
  event: (typeof DomainEvents)[keyof typeof DomainEvents] | null;
}

const SUB_STATUS: Record<DnsRecordPurpose, 'spfStatus' | 'dkimStatus' | 'dmarcStatus'> = { spf: 'spfStatus', dkim: 'dkimStatus', dmarc: 'dmarcStatus' };
const PURPOSES: DnsRecordPurpose[] = ['spf', 'dkim', 'dmarc'];

const after = (now: Date, ms: number) => new Date(now.getTime() + ms);
/** Never wait past a period's end: the last check of a period happens when it ends. */
const notPast = (at: number, end: number) => new Date(Math.min(at, end));

export function backoffDelay(schedule: number[], attempt: number): number {
  return schedule[Math.min(attempt, schedule.length - 1)];
}

/**
 * A failed domain that had been verified (its records were right once, so they have likely gone by mistake) is still
 * checked in the background, at the slowest DOMAIN_RECHECK_SCHEDULE step, for DOMAIN_PENDING_TIMEOUT after it failed:
 * the records put back, it becomes verified again with no verify call. One that never was is not: its pending
 * period was its owner's time to publish them.
 */
function failedRecheckAt(state: Pick<DomainState, 'verifiedAt'>, failedAt: Date, now: Date, settings: ScheduleSettings): Date | null {
  const end = failedAt.getTime() + settings.pendingTimeoutMs;
  if (!state.verifiedAt || now.getTime() >= end) return null;
  return notPast(now.getTime() + settings.recheckSchedule[settings.recheckSchedule.length - 1], end);
}

/**
 * The domain state machine (see the README):
 * - a DNS failure anywhere changes no status; the background check retries at the first backoff step;
 * - all three records right: verified (verifiedAt set on entering), re-checked every verifiedRecheckMs;
 * - records missing on a verified domain: still verified (mail keeps flowing), re-checked with backoff; failed when a
 *   check asked failureConfirmationMs or more after the first that found them missing still finds them missing, so
 *   one answer from a DNS provider's glitch, or a record caught mid-edit, does not stop the domain's mail;
 *   answers asked before that first check's do not end the confirmation either;
 * - records missing on a pending domain: pending with backoff, failed once pendingTimeoutMs has passed;
 * - a failed domain that had been verified is re-checked slowly for a while (failedRecheckAt);
 * - a manual verify of a failed domain that is still incomplete makes it pending again with a fresh clock.
 * Sub-statuses follow each record's own result whenever the check was conclusive.
 */
export function nextState(current: DomainState, check: DomainCheck, trigger: CheckTrigger, times: CheckTimes, settings: ScheduleSettings): Transition {
  const { askedAt, now } = times;
  const outcomes = PURPOSES.map((purpose) => check[purpose].result);
  if (outcomes.includes('error')) {
    const retryAt = (): Date | null => {
      if (trigger === 'manual') return current.nextCheckAt;
      return current.status === 'failed' ? failedRecheckAt(current, current.failedAt ?? now, now, settings) : after(now, settings.recheckSchedule[0]);
    };
    return { state: Object.assign({}, current, { nextCheckAt: retryAt() } satisfies Partial<DomainState>), event: null };
  }

  const subStatuses = Object.fromEntries(PURPOSES.map((purpose) => [SUB_STATUS[purpose], check[purpose].result === 'pass' ? 'verified' : 'pending'])) as Pick<
    DomainState,
    'spfStatus' | 'dkimStatus' | 'dmarcStatus'
  >;

  if (outcomes.every((outcome) => outcome === 'pass')) {
    // Found all by lookups asked before those of the check that began the confirmation (a slow verify applied after
    // a faster, later one): the newer answers stand, or the older would put the next look off by verifiedRecheckMs.
    if (current.status === 'verified' && current.recordsMissingSince && askedAt < current.recordsMissingSince) return { state: current, event: null };
    const entering = current.status !== 'verified';
    return {
      state: Object.assign({}, current, subStatuses, {
        status: 'verified',
        verifiedAt: entering || !current.verifiedAt ? now : current.verifiedAt,
        failedAt: null,
        recordsMissingSince: null,
        checkAttempts: 0,
        nextCheckAt: after(now, settings.verifiedRecheckMs),
      } satisfies Partial<DomainState>),
      event: entering ? DomainEvents.verified : null,
    };
  }

  const failed = (): Transition => ({
    state: Object.assign({}, current, subStatuses, {
      status: 'failed',
      failedAt: now,
      nextCheckAt: failedRecheckAt(current, now, now, settings),
    } satisfies Partial<DomainState>),
    event: DomainEvents.failed,
  });

  if (current.status === 'verified') {
    const since = current.recordsMissingSince;
    if (!since) {
      return {
        state: Object.assign({}, current, subStatuses, {
          recordsMissingSince: askedAt,
          checkAttempts: 0,
          nextCheckAt: notPast(now.getTime() + settings.recheckSchedule[0], askedAt.getTime() + settings.failureConfirmationMs),
        } satisfies Partial<DomainState>),
        event: null,
      };
    }
    if (askedAt.getTime() - since.getTime() >= settings.failureConfirmationMs) return failed();
    if (trigger === 'manual') return { state: Object.assign({}, current, subStatuses), event: null };
    const attempts = current.checkAttempts + 1;
    const nextCheckAt = notPast(now.getTime() + backoffDelay(settings.recheckSchedule, attempts), since.getTime() + settings.failureConfirmationMs);
    return { state: Object.assign({}, current, subStatuses, { checkAttempts: attempts, nextCheckAt } satisfies Partial<DomainState>), event: null };
  }
  if (current.status === 'failed') {
    if (trigger === 'background') {
      const nextCheckAt = failedRecheckAt(current, current.failedAt ?? now, now, settings);
      return { state: Object.assign({}, current, subStatuses, { nextCheckAt } satisfies Partial<DomainState>), event: null };
    }
    return {
      state: Object.assign({}, current, subStatuses, {
        status: 'pending',
        failedAt: null,
        recordsMissingSince: null,
        pendingSince: now,
        checkAttempts: 0,
        nextCheckAt: after(now, settings.recheckSchedule[0]),
      } satisfies Partial<DomainState>),
      event: null,
    };
  }
  if (now.getTime() - current.pendingSince.getTime() >= settings.pendingTimeoutMs) return failed();
  if (trigger === 'manual') return { state: Object.assign({}, current, subStatuses), event: null };
  const attempts = current.checkAttempts + 1;
  const nextCheckAt = notPast(now.getTime() + backoffDelay(settings.recheckSchedule, attempts), current.pendingSince.getTime() + settings.pendingTimeoutMs);
  return { state: Object.assign({}, current, subStatuses, { checkAttempts: attempts, nextCheckAt } satisfies Partial<DomainState>), event: null };
}
