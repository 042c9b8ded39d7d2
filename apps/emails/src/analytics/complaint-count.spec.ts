import { complaintCount } from './complaint-count';

describe(complaintCount.name, () => {
  const recipient = (overrides: Partial<Parameters<typeof complaintCount>[0]>) => ({
    emailStatus: 'queued' as const,
    recipientStatus: 'queued' as const,
    attemptInFlight: false,
    recipientMarked: false,
    ...overrides,
  });

  it('counts a complaint from a recipient a server took the message for', () => {
    expect(complaintCount(recipient({ emailStatus: 'delivered', recipientStatus: 'delivered' }))).toBe('count');
    expect(complaintCount(recipient({ recipientStatus: 'sent', attemptInFlight: true }))).toBe('count');
  });

  it('decides later while the attempt that may have reached the reader is not written', () => {
    expect(complaintCount(recipient({ attemptInFlight: true }))).toBe('later');
    expect(complaintCount(recipient({ recipientStatus: 'deferred', attemptInFlight: true }))).toBe('later');
    // Marked during an attempt that then left it waiting: the retry that delivers it marks the email.
    expect(complaintCount(recipient({ recipientStatus: 'deferred', recipientMarked: true }))).toBe('later');
  });

  it('never counts one from a recipient that never got the message, waiting unmarked with no attempt in flight, or none', () => {
    expect(complaintCount(recipient({ recipientStatus: 'deferred' }))).toBe('never');
    for (const status of ['suppressed', 'cancelled', 'bounced', 'failed'] as const) {
      expect(complaintCount(recipient({ emailStatus: 'bounced', recipientStatus: status, recipientMarked: true }))).toBe('never');
    }
    expect(complaintCount(recipient({ emailStatus: 'scheduled', attemptInFlight: true }))).toBe('never');
    expect(complaintCount(recipient({ recipientStatus: undefined, attemptInFlight: true }))).toBe('never');
  });
});
