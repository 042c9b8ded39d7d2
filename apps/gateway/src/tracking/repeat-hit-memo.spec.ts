import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
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

  it('holds a few dozen bytes per entry however long the link: a full memo of long links outgrew the gateway', () => {
    setFlagsFromString('--expose-gc');
    const collectGarbage = runInNewContext('gc') as () => void;
    const subject = memo(10_000);
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    // A click target carries its link, up to about 2,900 characters: 100,000 of them were 300 MB of a 384 MiB gateway.
    const link = `https://a.test/${'x'.repeat(2_900)}`;
    // Each read out of its own token, as the gateway reads them: a string of its own, sharing nothing with the others.
    const target = (index: number) => Buffer.from(`c email_1 ${link}${index}`).toString();
    for (let index = 0; index < 10_000; index++) expect(subject.counts(target(index), '192.0.2.1', 0)).toBe(true);
    collectGarbage();
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(5_000_000);
    expect(subject.counts(target(9_999), '192.0.2.1', 1)).toBe(false);
    expect(subject.counts(target(10_000), '192.0.2.1', 1)).toBe(true);
  });
});
