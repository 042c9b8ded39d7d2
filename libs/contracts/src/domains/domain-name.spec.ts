import { domainNameProblem, sendingDomainNameProblem } from './domain-name';

describe(domainNameProblem.name, () => {
  // IDNA (UTS #46) reads these as the full stop: a Japanese or Chinese input method types 。 at the end of a name.
  it.each(['example.com.', 'example.jp\u3002', 'example.com\uFF0E', 'example.com\uFF61'])('says %j ends with a dot, in whichever script the dot is written', (name) => {
    expect(domainNameProblem(name)).toBe('must not end with a dot');
    expect(sendingDomainNameProblem(name)).toBe('must not end with a dot');
  });

  it('takes the same dots inside a name as the full stop they stand for', () => {
    expect(domainNameProblem('example\u3002jp')).toBeNull();
  });
});
