import { smtpAttemptResult } from './smtp-attempt-result';

const outcome = (kind: 'accepted' | 'temporary' | 'permanent') => ({ kind, code: null, reply: '' });

describe(smtpAttemptResult.name, () => {
  it.each([
    [['accepted', 'accepted'], 'accepted'],
    [['temporary'], 'deferred'],
    [['permanent', 'permanent'], 'refused'],
    [['accepted', 'temporary'], 'mixed'],
    [['accepted', 'permanent', 'temporary'], 'mixed'],
  ] as const)('labels an attempt whose recipients got %j as %s', (kinds, result) => {
    expect(smtpAttemptResult(kinds.map(outcome))).toBe(result);
  });
});
