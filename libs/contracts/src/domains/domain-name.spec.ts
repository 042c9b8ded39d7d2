import { domainNameProblem, normalizeDomainName, sendingDomainNameProblem } from './domain-name';

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

describe('a name with ASCII no host name holds', () => {
  // The conversion reads a URL host: it drops the tab and newline, decodes %41 and %2e, and stops at \ / ? #.
  it.each([
    ['exa\tmple.com', '"\\t"'],
    ['exa\nmple.com', '"\\n"'],
    ['exa%41mple.com', "'%'"],
    ['example.com\\evil.com', "'\\'"],
    ['example.com/path', "'/'"],
    ['bücher.de?x', "'?'"],
    ['bücher.de#x', "'#'"],
    ['bü_cher.de', "'_'"],
  ])('refuses %j, saying which character, and converts it to nothing', (name, quoted) => {
    expect(domainNameProblem(name)).toBe(`must hold only letters, digits, hyphens and dots; ${quoted} has no place in a domain name`);
    expect(sendingDomainNameProblem(name)).toBe(domainNameProblem(name));
    expect(normalizeDomainName(name)).toBe('');
  });

  it('still converts letters, digits, hyphens, dots and internationalized letters', () => {
    expect(normalizeDomainName('Bücher-2.DE')).toBe('xn--bcher-2-n2a.de');
    expect(domainNameProblem('Bücher-2.DE')).toBeNull();
  });
});

describe('a name whose conversion yields ASCII no host name holds', () => {
  it('names the character and what the conversion read it as', () => {
    expect(domainNameProblem('ab\u207acd.example')).toBe("must hold only letters, digits, hyphens and dots; '\u207a' (read as '+') has no place in a domain name");
    expect(domainNameProblem('x\u2474.example')).toBe("must hold only letters, digits, hyphens and dots; '\u2474' (read as '(1)') has no place in a domain name");
  });
});
