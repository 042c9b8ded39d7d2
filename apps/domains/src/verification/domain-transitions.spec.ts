import { DomainState, nextState, ScheduleSettings } from './domain-transitions';
import { DomainCheck } from './verification-rules';

const MINUTE = 60_000;
const settings: ScheduleSettings = { recheckSchedule: [1 * MINUTE, 5 * MINUTE, 15 * MINUTE], pendingTimeoutMs: 72 * 60 * MINUTE, verifiedRecheckMs: 6 * 60 * MINUTE, failureConfirmationMs: 30 * MINUTE };
const T0 = new Date('2026-11-26T12:00:00Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * MINUTE);
const times = (minutes: number) => ({ askedAt: at(minutes), now: at(minutes) });

const allPass: DomainCheck = { spf: { result: 'pass' }, dkim: { result: 'pass' }, dmarc: { result: 'pass' } };
const dmarcMissing: DomainCheck = { spf: { result: 'pass' }, dkim: { result: 'pass' }, dmarc: { result: 'fail' } };
const dmarcTimeout: DomainCheck = { spf: { result: 'pass' }, dkim: { result: 'pass' }, dmarc: { result: 'error', error: 'timeout' } };

const verified: DomainState = {
  status: 'verified',
  spfStatus: 'verified',
  dkimStatus: 'verified',
  dmarcStatus: 'verified',
  verifiedAt: at(-600),
  failedAt: null,
  pendingSince: at(-700),
  recordsMissingSince: null,
  checkAttempts: 0,
  nextCheckAt: at(0),
};

describe('nextState: a verified domain whose records go missing', () => {
  it('stays verified on the first look, with the sub-status showing the truth and a re-check at the first backoff step', () => {
    const { state, event } = nextState(verified, dmarcMissing, 'background', times(0), settings);
    expect(event).toBeNull();
    expect(state).toMatchObject({ status: 'verified', dmarcStatus: 'pending', spfStatus: 'verified', recordsMissingSince: at(0), nextCheckAt: at(1) });
  });

  it('counts a manual verify as a first look too, and lets the background confirm it', () => {
    const { state, event } = nextState(verified, dmarcMissing, 'manual', times(0), settings);
    expect(event).toBeNull();
    expect(state).toMatchObject({ status: 'verified', dmarcStatus: 'pending', recordsMissingSince: at(0), nextCheckAt: at(1) });
  });

  it('re-checks with backoff, never past the end of the confirmation, and fails only at its end', () => {
    let state = nextState(verified, dmarcMissing, 'background', times(0), settings).state;
    const checks: number[] = [];
    for (let i = 0; i < 10 && state.status === 'verified'; i++) {
      const due = (state.nextCheckAt!.getTime() - T0.getTime()) / MINUTE;
      checks.push(due);
      const transition = nextState(state, dmarcMissing, 'background', times(due), settings);
      state = transition.state;
      if (state.status === 'failed') expect(transition.event).toBe('domain.failed');
      else expect(transition.event).toBeNull();
    }
    expect(checks).toEqual([1, 6, 21, 30]);
    expect(state).toMatchObject({ status: 'failed', failedAt: at(30), dmarcStatus: 'pending' });
  });

  it('counts from when the lookups were asked: answers asked before the confirmation ends do not fail the domain', () => {
    const confirming = nextState(verified, dmarcMissing, 'manual', times(0), settings).state;
    const { state } = nextState(confirming, dmarcMissing, 'manual', { askedAt: at(29.9), now: at(30.1) }, settings);
    expect(state.status).toBe('verified');
    expect(nextState(confirming, dmarcMissing, 'manual', times(30), settings)).toMatchObject({ state: { status: 'failed' }, event: 'domain.failed' });
  });

  it('stays verified with no event when the records come back, and forgets the confirmation', () => {
    const confirming = nextState(verified, dmarcMissing, 'background', times(0), settings).state;
    const { state, event } = nextState(confirming, allPass, 'background', times(1), settings);
    expect(event).toBeNull();
    expect(state).toMatchObject({ status: 'verified', dmarcStatus: 'verified', verifiedAt: verified.verifiedAt, recordsMissingSince: null, checkAttempts: 0 });
  });

  it('keeps the confirmation when a check whose lookups began before the first that found a record missing finds them all', () => {
    // A verify asked at 0 is slow; a background check asked at 0.5 finds DMARC gone and is applied first.
    const confirming = nextState(verified, dmarcMissing, 'background', times(0.5), settings).state;
    const { state, event } = nextState(confirming, allPass, 'manual', { askedAt: at(0), now: at(0.6) }, settings);
    expect(event).toBeNull();
    // The older answers do not undo the newer: still confirming, re-checked soon, not after verifiedRecheckMs.
    expect(state).toMatchObject({ status: 'verified', dmarcStatus: 'pending', recordsMissingSince: at(0.5), nextCheckAt: confirming.nextCheckAt });
  });

  it('changes nothing on a DNS failure during the confirmation, and retries at the first step', () => {
    const confirming = nextState(verified, dmarcMissing, 'background', times(0), settings).state;
    const { state } = nextState(confirming, dmarcTimeout, 'background', times(1), settings);
    expect(state).toMatchObject({ status: 'verified', dmarcStatus: 'pending', recordsMissingSince: at(0), nextCheckAt: at(2) });
  });
});

describe('nextState: a failed domain', () => {
  const failedOnce = nextState(Object.assign({}, verified, { recordsMissingSince: at(-30) }), dmarcMissing, 'background', times(0), settings).state;

  it('that had been verified is re-checked at the last backoff step, and verified again when the records return', () => {
    expect(failedOnce).toMatchObject({ status: 'failed', nextCheckAt: at(15) });
    const still = nextState(failedOnce, dmarcMissing, 'background', times(15), settings);
    expect(still).toMatchObject({ state: { status: 'failed', nextCheckAt: at(30) }, event: null });
    expect(nextState(still.state, allPass, 'background', times(30), settings)).toMatchObject({ state: { status: 'verified', verifiedAt: at(30) }, event: 'domain.verified' });
  });

  it('is no longer checked once DOMAIN_PENDING_TIMEOUT has passed since it failed', () => {
    const end = 72 * 60;
    const last = nextState(Object.assign({}, failedOnce, { nextCheckAt: at(end - 5) }), dmarcMissing, 'background', times(end - 5), settings).state;
    expect(last.nextCheckAt).toEqual(at(end));
    expect(nextState(last, dmarcMissing, 'background', times(end), settings).state.nextCheckAt).toBeNull();
  });

  it('that never was verified is not checked in the background', () => {
    const pending: DomainState = Object.assign({}, verified, { status: 'pending', verifiedAt: null, pendingSince: at(-72 * 60) } satisfies Partial<DomainState>);
    expect(nextState(pending, dmarcMissing, 'background', times(0), settings)).toMatchObject({ state: { status: 'failed', nextCheckAt: null }, event: 'domain.failed' });
  });
});
