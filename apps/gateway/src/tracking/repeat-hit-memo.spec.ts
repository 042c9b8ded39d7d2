import { RepeatHitMemo } from './repeat-hit-memo';

describe(RepeatHitMemo.name, () => {
  const memo = (maxEntries = 10) => new RepeatHitMemo(1000, maxEntries);

  it('counts the first hit of a target from a client, not its repeats within the window, and again after it', () => {
    const subject = memo();
    expect(subject.counts('o email_1', '192.0.2.1', 0)).toBe(true);
    expect(subject.counts('o email_1', '192.0.2.1', 999)).toBe(false);
    expect(subject.counts('o email_1', '192.0.2.1', 1000)).toBe(true);
  });

  it('counts other targets and other clients apart; an IPv4 client is one whichever way it is written, an IPv6 one by its /64', () => {
    const subject = memo();
    expect(subject.counts('o email_1', '192.0.2.1', 0)).toBe(true);
    expect(subject.counts('c email_1 https://a.test/', '192.0.2.1', 0)).toBe(true);
    expect(subject.counts('o email_1', '192.0.2.2', 0)).toBe(true);
    expect(subject.counts('o email_1', '::ffff:192.0.2.1', 0)).toBe(false);
    expect(subject.counts('o email_1', '2001:db8:1:2::1', 0)).toBe(true);
    expect(subject.counts('o email_1', '2001:db8:1:2::ffff', 0)).toBe(false);
    expect(subject.counts('o email_1', '2001:db8:1:3::1', 0)).toBe(true);
  });

  it('forgets the oldest entries past its bound, so memory stays bounded', () => {
    const subject = memo(2);
    subject.counts('o email_1', '192.0.2.1', 0);
    subject.counts('o email_2', '192.0.2.1', 0);
    subject.counts('o email_3', '192.0.2.1', 0);
    expect(subject.counts('o email_1', '192.0.2.1', 1)).toBe(true);
    expect(subject.counts('o email_3', '192.0.2.1', 1)).toBe(false);
  });
});
