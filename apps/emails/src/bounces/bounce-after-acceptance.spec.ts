import { bounceAfterAcceptance } from './bounce-after-acceptance';

describe(bounceAfterAcceptance.name, () => {
  it('bounces a delivered single-recipient email, and one a relay took', () => {
    expect(bounceAfterAcceptance('delivered', [{ address: 'a@example.com', status: 'delivered' }], 'a@example.com')).toEqual({ emailStatus: 'bounced' });
    expect(bounceAfterAcceptance('sent', [{ address: 'a@example.com', status: 'sent' }], 'a@example.com')).toEqual({ emailStatus: 'bounced' });
  });

  it('summarizes the email as delivery does: another recipient delivered or still waiting decides', () => {
    const delivered = { address: 'b@example.com', status: 'delivered' as const };
    expect(bounceAfterAcceptance('delivered', [{ address: 'a@example.com', status: 'delivered' }, delivered], 'a@example.com')).toEqual({ emailStatus: 'delivered' });
    expect(bounceAfterAcceptance('queued', [{ address: 'a@example.com', status: 'sent' }, { address: 'b@example.com', status: 'deferred' }], 'a@example.com')).toEqual({
      emailStatus: 'queued',
    });
    expect(bounceAfterAcceptance('delivered', [{ address: 'a@example.com', status: 'delivered' }, { address: 'b@example.com', status: 'failed' }], 'a@example.com')).toEqual({
      emailStatus: 'bounced',
    });
  });

  // A report that arrived while the accepted attempt was in flight, or a retry pending, was dropped: the recipient then read delivered.
  it('bounces a recipient of a queued email still waiting: its attempt may be in flight, or a retry pending', () => {
    for (const status of ['queued', 'deferred'] as const) {
      expect(bounceAfterAcceptance('queued', [{ address: 'a@example.com', status }], 'a@example.com')).toEqual({ emailStatus: 'bounced' });
      expect(bounceAfterAcceptance('queued', [{ address: 'a@example.com', status }, { address: 'b@example.com', status: 'queued' }], 'a@example.com')).toEqual({
        emailStatus: 'queued',
      });
    }
  });

  it('changes nothing for a recipient that bounced or failed already, was never sent, is not on the email, or whose email is scheduled', () => {
    for (const status of ['bounced', 'failed', 'suppressed', 'cancelled'] as const) {
      expect(bounceAfterAcceptance('bounced', [{ address: 'a@example.com', status }], 'a@example.com')).toBeNull();
    }
    expect(bounceAfterAcceptance('scheduled', [{ address: 'a@example.com', status: 'queued' }], 'a@example.com')).toBeNull();
    expect(bounceAfterAcceptance('delivered', [{ address: 'a@example.com', status: 'delivered' }], 'other@example.com')).toBeNull();
  });
});
