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
  checkAttempts: number;
  nextCheckAt: Date | null;
}

export interface ScheduleSettings {
  /** Waits between background checks of a pending domain; the last one repeats. */
  recheckSchedule: number[];
  pendingTimeoutMs: number;
  verifiedRecheckMs: number;
}

export type CheckTrigger = 'manual' | 'background';

export interface Transition {
  state: DomainState;
  event: (typeof DomainEvents)[keyof typeof DomainEvents] | null;
}

const SUB_STATUS: Record<DnsRecordPurpose, 'spfStatus' | 'dkimStatus' | 'dmarcStatus'> = { spf: 'spfStatus', dkim: 'dkimStatus', dmarc: 'dmarcStatus' };
const PURPOSES: DnsRecordPurpose[] = ['spf', 'dkim', 'dmarc'];

const after = (now: Date, ms: number) => new Date(now.getTime() + ms);

export function backoffDelay(schedule: number[], attempt: number): number {
  return schedule[Math.min(attempt, schedule.length - 1)];
}

/**
 * The domain state machine (see the README):
 * - a DNS failure anywhere changes no status; the background check retries at the first backoff step;
 * - all three records right: verified (verifiedAt set on entering), re-checked every verifiedRecheckMs;
 * - records missing on a verified domain: failed (they disappeared);
 * - records missing on a pending domain: pending with backoff, failed once pendingTimeoutMs has passed;
 * - a manual verify of a failed domain that is still incomplete makes it pending again with a fresh clock.
 * Sub-statuses follow each record's own result whenever the check was conclusive.
 */
export function nextState(current: DomainState, check: DomainCheck, trigger: CheckTrigger, now: Date, settings: ScheduleSettings): Transition {
  const outcomes = PURPOSES.map((purpose) => check[purpose].result);
  if (outcomes.includes('error')) {
    const nextCheckAt = current.status === 'failed' ? current.nextCheckAt : trigger === 'background' ? after(now, settings.recheckSchedule[0]) : current.nextCheckAt;
    return { state: Object.assign({}, current, { nextCheckAt } satisfies Partial<DomainState>), event: null };
  }

  const subStatuses = Object.fromEntries(PURPOSES.map((purpose) => [SUB_STATUS[purpose], check[purpose].result === 'pass' ? 'verified' : 'pending'])) as Pick<
    DomainState,
    'spfStatus' | 'dkimStatus' | 'dmarcStatus'
  >;

  if (outcomes.every((outcome) => outcome === 'pass')) {
    const entering = current.status !== 'verified';
    return {
      state: Object.assign({}, current, subStatuses, {
        status: 'verified',
        verifiedAt: entering || !current.verifiedAt ? now : current.verifiedAt,
        failedAt: null,
        checkAttempts: 0,
        nextCheckAt: after(now, settings.verifiedRecheckMs),
      } satisfies Partial<DomainState>),
      event: entering ? DomainEvents.verified : null,
    };
  }

  const failed = (): Transition => ({
    state: Object.assign({}, current, subStatuses, { status: 'failed', failedAt: now, nextCheckAt: null } satisfies Partial<DomainState>),
    event: DomainEvents.failed,
  });

  if (current.status === 'verified') return failed();
  if (current.status === 'failed') {
    if (trigger === 'background') return { state: Object.assign({}, current, subStatuses, { nextCheckAt: null } satisfies Partial<DomainState>), event: null };
    return {
      state: Object.assign({}, current, subStatuses, {
        status: 'pending',
        failedAt: null,
        pendingSince: now,
        checkAttempts: 0,
        nextCheckAt: after(now, settings.recheckSchedule[0]),
      } satisfies Partial<DomainState>),
      event: null,
    };
  }
  if (now.getTime() - current.pendingSince.getTime() >= settings.pendingTimeoutMs) return failed();
  if (trigger === 'manual') return { state: { ...current, ...subStatuses }, event: null };
  const attempts = current.checkAttempts + 1;
  // Never wait past the deadline: the last check happens when the pending period ends.
  const deadline = current.pendingSince.getTime() + settings.pendingTimeoutMs;
  const nextCheckAt = new Date(Math.min(now.getTime() + backoffDelay(settings.recheckSchedule, attempts), deadline));
  return { state: Object.assign({}, current, subStatuses, { checkAttempts: attempts, nextCheckAt } satisfies Partial<DomainState>), event: null };
}
