import { AttemptResult } from '../recipient-transition';

/** How long delayed@ waits before it is delivered (one simulated retry). */
export const SIMULATED_DELAY_MS = 1000;

export type SimulatedAddress = 'delivered' | 'bounced' | 'complained' | 'failed' | 'suppressed' | 'delayed';

const KNOWN: readonly SimulatedAddress[] = ['delivered', 'bounced', 'complained', 'failed', 'suppressed', 'delayed'];

/** The outcome an address asks for: its local part without a +label, on any domain; anything else is delivered. */
export function simulatedKind(address: string): SimulatedAddress {
  const local = address.slice(0, address.lastIndexOf('@')).toLowerCase().split('+')[0];
  return (KNOWN as readonly string[]).includes(local) ? (local as SimulatedAddress) : 'delivered';
}

/**
 * Test mode never opens an SMTP connection: the outcome is decided by the
 * address, deterministically, and goes through the same transitions (and so
 * the same events) as a live delivery.
 */
export function simulateAttempt(address: string, attemptsBefore: number): AttemptResult {
  const accepted = { kind: 'accepted' as const, code: 250, reply: '250 2.0.0 Simulated delivery (test mode)' };
  switch (simulatedKind(address)) {
    case 'bounced':
      return { outcome: { kind: 'permanent', code: 550, reply: '550 5.1.1 Simulated bounce (test mode)' } };
    case 'complained':
      return { outcome: accepted, complained: true };
    case 'failed':
      return { outcome: { kind: 'temporary', code: 421, reply: '421 4.4.2 Simulated failure (test mode)' }, failNow: true };
    case 'suppressed':
      return { outcome: { kind: 'permanent', code: null, reply: 'Simulated suppression (test mode)' }, suppressed: true };
    case 'delayed':
      return attemptsBefore === 0
        ? { outcome: { kind: 'temporary', code: 451, reply: '451 4.3.0 Simulated delay (test mode)' }, retryAfterMs: SIMULATED_DELAY_MS }
        : { outcome: accepted };
    case 'delivered':
      return { outcome: accepted };
  }
}
