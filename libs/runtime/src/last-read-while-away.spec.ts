import { DomainError, ErrorCode } from '@mailroom/errors';
import { LastReadWhileAway } from './last-read-while-away';

const away = new DomainError(ErrorCode.ServiceUnavailable, 'The domains service is not running; try again.');

describe(LastReadWhileAway.name, () => {
  it('stands in with the last value read while the service is away, within its age', () => {
    const reads = new LastReadWhileAway<string>(1000);
    reads.remember('a.test', 'pending', 0);
    reads.remember('a.test', 'verified', 100);
    expect(reads.standIn('a.test', away, 1100)).toBe('verified');
    expect(() => reads.standIn('a.test', away, 1101)).toThrow(away);
  });

  it('throws any other failure, and for a key never read', () => {
    const reads = new LastReadWhileAway<string>(1000);
    reads.remember('a.test', 'verified', 0);
    const other = new Error('does not open with this ENCRYPTION_KEY');
    expect(() => reads.standIn('a.test', other, 1)).toThrow(other);
    expect(() => reads.standIn('b.test', away, 1)).toThrow(away);
  });

  it('holds at most maxEntries keys however many distinct ones are read, forgetting the least recently read first', () => {
    const reads = new LastReadWhileAway<string | null>(60_000, 1000);
    reads.remember('steady.test', 'verified', 0);
    for (let index = 0; index < 100_000; index += 1) {
      reads.remember(`never-added-${index}.test`, null, 1);
      // A domain in use is read again all along, and so stays.
      if (index % 500 === 0) reads.remember('steady.test', 'verified', 1);
    }
    expect(reads.size).toBeLessThanOrEqual(1000);
    expect(reads.standIn('steady.test', away, 2)).toBe('verified');
    expect(() => reads.standIn('never-added-0.test', away, 2)).toThrow(away);
    expect(reads.standIn('never-added-99999.test', away, 2)).toBeNull();
  });

  it('lets go of reads older than maxAgeMs, which could never stand in again', () => {
    const reads = new LastReadWhileAway<string>(1000, 1000);
    for (let index = 0; index < 500; index += 1) reads.remember(`old-${index}.test`, 'verified', 0);
    reads.remember('new.test', 'verified', 1001);
    expect(reads.size).toBe(1);
  });
});
