import { complaintMark } from './complaint-mark';

describe(complaintMark.name, () => {
  it('marks the email for a recipient whose server took the message', () => {
    expect(complaintMark('delivered', 'delivered')).toBe('email');
    expect(complaintMark('queued', 'sent')).toBe('email');
  });

  it('marks only the recipient while it waits on an email being delivered: its attempt may be in flight', () => {
    expect(complaintMark('queued', 'queued')).toBe('recipient');
    expect(complaintMark('queued', 'deferred')).toBe('recipient');
  });

  it('marks nothing for a recipient that never got the message, or none at all', () => {
    for (const status of ['suppressed', 'cancelled', 'bounced', 'failed'] as const) expect(complaintMark('bounced', status)).toBeNull();
    expect(complaintMark('scheduled', 'queued')).toBeNull();
    expect(complaintMark('delivered', undefined)).toBeNull();
  });
});
