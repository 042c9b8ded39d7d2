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
});
