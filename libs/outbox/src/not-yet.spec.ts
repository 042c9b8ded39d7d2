import { handlerFailureLevel, NOT_YET_WARNS_FROM_ATTEMPT, NotYetError } from './not-yet';

describe(handlerFailureLevel.name, () => {
  it('logs an expected wait at debug, until it has lasted long enough to be a fault', () => {
    const wait = new NotYetError('waits on an attempt not yet written');
    expect(handlerFailureLevel(wait, 1)).toBe('debug');
    expect(handlerFailureLevel(wait, NOT_YET_WARNS_FROM_ATTEMPT - 1)).toBe('debug');
    expect(handlerFailureLevel(wait, NOT_YET_WARNS_FROM_ATTEMPT)).toBe('warn');
  });

  it('warns of any other failure from the first delivery', () => {
    expect(handlerFailureLevel(new Error('connection terminated'), 1)).toBe('warn');
    expect(handlerFailureLevel('a thrown string', 1)).toBe('warn');
  });
});
