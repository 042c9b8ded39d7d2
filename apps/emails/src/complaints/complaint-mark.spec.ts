import { complaintMark } from './complaint-mark';

describe(complaintMark.name, () => {
  it('marks the email for a recipient whose server took the message', () => {
    expect(complaintMark('delivered', 'delivered', false)).toBe('email');
    expect(complaintMark('queued', 'sent', true)).toBe('email');
  });

  it('marks only the recipient while it waits on an email a worker has claimed: its attempt may be in flight', () => {
    expect(complaintMark('queued', 'queued', true)).toBe('recipient');
    expect(complaintMark('queued', 'deferred', true)).toBe('recipient');
  });

  it('marks nothing for a recipient waiting with no attempt in flight (between retries, or not yet tried)', () => {
    expect(complaintMark('queued', 'deferred', false)).toBeNull();
    expect(complaintMark('queued', 'queued', false)).toBeNull();
  });

  it('marks nothing for a recipient that never got the message, or none at all', () => {
    for (const status of ['suppressed', 'cancelled', 'bounced', 'failed'] as const) expect(complaintMark('bounced', status, false)).toBeNull();
    expect(complaintMark('scheduled', 'queued', true)).toBeNull();
    expect(complaintMark('delivered', undefined, true)).toBeNull();
  });
});
