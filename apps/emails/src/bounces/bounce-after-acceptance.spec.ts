import { bounceAfterAcceptance } from './bounce-after-acceptance';

describe(bounceAfterAcceptance.name, () => {
  it('bounces a delivered single-recipient email, and one a relay took', () => {
    expect(bounceAfterAcceptance([{ address: 'a@example.com', status: 'delivered' }], 'a@example.com')).toEqual({ emailStatus: 'bounced' });
    expect(bounceAfterAcceptance([{ address: 'a@example.com', status: 'sent' }], 'a@example.com')).toEqual({ emailStatus: 'bounced' });
  });

  it('summarizes the email as delivery does: another recipient delivered or still waiting decides', () => {
    const delivered = { address: 'b@example.com', status: 'delivered' as const };
    expect(bounceAfterAcceptance([{ address: 'a@example.com', status: 'delivered' }, delivered], 'a@example.com')).toEqual({ emailStatus: 'delivered' });
    expect(bounceAfterAcceptance([{ address: 'a@example.com', status: 'sent' }, { address: 'b@example.com', status: 'deferred' }], 'a@example.com')).toEqual({
      emailStatus: 'queued',
    });
    expect(bounceAfterAcceptance([{ address: 'a@example.com', status: 'delivered' }, { address: 'b@example.com', status: 'failed' }], 'a@example.com')).toEqual({
      emailStatus: 'bounced',
    });
  });

  it('changes nothing for a recipient that bounced or failed already, was never sent, still waits, or is not on the email', () => {
    for (const status of ['bounced', 'failed', 'suppressed', 'cancelled', 'queued', 'deferred'] as const) {
      expect(bounceAfterAcceptance([{ address: 'a@example.com', status }], 'a@example.com')).toBeNull();
    }
    expect(bounceAfterAcceptance([{ address: 'a@example.com', status: 'delivered' }], 'other@example.com')).toBeNull();
  });
});
