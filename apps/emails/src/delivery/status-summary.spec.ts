import { summarizeEmailStatus, summarizeRecipients } from './status-summary';

describe(summarizeEmailStatus.name, () => {
  it('stays queued while any recipient still waits', () => {
    expect(summarizeEmailStatus(['delivered', 'deferred'])).toBe('queued');
    expect(summarizeEmailStatus(['queued', 'bounced'])).toBe('queued');
  });

  it('prefers delivered, then sent, then bounced, then failed', () => {
    expect(summarizeEmailStatus(['bounced', 'delivered', 'failed'])).toBe('delivered');
    expect(summarizeEmailStatus(['failed', 'sent', 'bounced'])).toBe('sent');
    expect(summarizeEmailStatus(['failed', 'bounced', 'suppressed'])).toBe('bounced');
    expect(summarizeEmailStatus(['suppressed', 'failed'])).toBe('failed');
  });

  it('is suppressed when every recipient was suppressed', () => {
    expect(summarizeEmailStatus(['suppressed', 'suppressed'])).toBe('suppressed');
  });
});

describe(summarizeRecipients.name, () => {
  const now = new Date('2030-01-01T00:00:00.000Z');

  it('is due again at the earliest waiting recipient', () => {
    const summary = summarizeRecipients(
      [
        { status: 'deferred', nextAttemptAt: new Date('2030-01-01T00:05:00.000Z') },
        { status: 'deferred', nextAttemptAt: new Date('2030-01-01T00:01:00.000Z') },
        { status: 'delivered', nextAttemptAt: null },
      ],
      now,
    );
    expect(summary).toEqual({ status: 'queued', nextAttemptAt: new Date('2030-01-01T00:01:00.000Z'), delivered: true });
  });

  it('has no next attempt once every recipient is final', () => {
    expect(summarizeRecipients([{ status: 'bounced', nextAttemptAt: null }], now)).toEqual({ status: 'bounced', nextAttemptAt: null, delivered: false });
  });
});
