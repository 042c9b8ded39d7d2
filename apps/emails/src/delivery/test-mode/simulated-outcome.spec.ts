import { simulateAttempt, simulatedKind } from './simulated-outcome';

describe(simulatedKind.name, () => {
  it('reads the local part on any domain, with or without a +label', () => {
    expect(simulatedKind('bounced@example.com')).toBe('bounced');
    expect(simulatedKind('Bounced+signup-42@anything.test')).toBe('bounced');
    expect(simulatedKind('complained@x.io')).toBe('complained');
    expect(simulatedKind('failed@x.io')).toBe('failed');
    expect(simulatedKind('suppressed@x.io')).toBe('suppressed');
    expect(simulatedKind('delayed+1@x.io')).toBe('delayed');
    expect(simulatedKind('delivered@x.io')).toBe('delivered');
    expect(simulatedKind('alice@x.io')).toBe('delivered');
    expect(simulatedKind('notbounced@x.io')).toBe('delivered');
  });
});

describe(simulateAttempt.name, () => {
  it('delays delayed@ once, then delivers it', () => {
    expect(simulateAttempt('delayed@x.io', 0)).toMatchObject({ outcome: { kind: 'temporary' }, retryAfterMs: 1000 });
    expect(simulateAttempt('delayed@x.io', 1).outcome.kind).toBe('accepted');
  });

  it('bounces, fails, suppresses and complains as the address says', () => {
    expect(simulateAttempt('bounced@x.io', 0).outcome).toMatchObject({ kind: 'permanent', code: 550 });
    expect(simulateAttempt('failed@x.io', 0).failNow).toBe(true);
    expect(simulateAttempt('suppressed@x.io', 0).suppressed).toBe(true);
    expect(simulateAttempt('complained@x.io', 0)).toMatchObject({ outcome: { kind: 'accepted' }, complained: true });
  });
});
