import { subjectCovers, subjectsWith } from './stream-subjects';

describe(subjectCovers.name, () => {
  it.each([
    ['email.>', 'email.delivered'],
    ['email.>', 'email.*'],
    ['email.>', 'email.a.b'],
    ['email.*', 'email.delivered'],
    ['*.>', 'domain.>'],
    ['email.delivered', 'email.delivered'],
    ['>', 'email.>'],
  ])('%s covers %s', (wide, narrow) => {
    expect(subjectCovers(wide, narrow)).toBe(true);
  });

  it.each([
    ['email.*', 'email.>'],
    ['email.*', 'email.a.b'],
    ['email.>', 'email'],
    ['email.delivered', 'email.*'],
    ['email.delivered', 'email.>'],
    ['domain.>', 'email.>'],
    ['email.delivered.x', 'email.delivered'],
  ])('%s does not cover %s', (wide, narrow) => {
    expect(subjectCovers(wide, narrow)).toBe(false);
  });
});

describe(subjectsWith.name, () => {
  it('is null when every required subject is taken already', () => {
    expect(subjectsWith(['email.>', 'domain.>', 'audit.*'], ['email.>', 'domain.>'])).toBeNull();
  });

  it('adds the missing ones and keeps the others', () => {
    expect(subjectsWith(['email.>', 'audit.>'], ['email.>', 'domain.>'])).toEqual(['email.>', 'audit.>', 'domain.>']);
  });

  it('drops the subjects a missing one covers', () => {
    expect(subjectsWith(['email.delivered', 'domain.*', 'audit.>'], ['email.>', 'domain.>'])).toEqual(['audit.>', 'email.>', 'domain.>']);
  });
});
