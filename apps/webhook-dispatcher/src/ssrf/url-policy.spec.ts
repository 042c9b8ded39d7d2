import { webhookUrlProblem } from './url-policy';

const strict = { allowHttp: false, allowPrivateNetworks: false };

describe(webhookUrlProblem.name, () => {
  it('accepts a public https URL', () => {
    expect(webhookUrlProblem('https://hooks.example.com/mailroom?token=abc', strict)).toBeNull();
    expect(webhookUrlProblem('https://8.8.8.8/hook', strict)).toBeNull();
  });

  it('requires https unless http is allowed', () => {
    expect(webhookUrlProblem('http://hooks.example.com/', strict)).toBe('must be an https URL');
    expect(webhookUrlProblem('http://hooks.example.com/', { ...strict, allowHttp: true })).toBeNull();
    expect(webhookUrlProblem('ftp://hooks.example.com/', { ...strict, allowHttp: true })).toBe('must be an http or https URL');
    expect(webhookUrlProblem('not a url', strict)).toMatch(/absolute URL/);
  });

  it('accepts names, even localhost: names are checked after resolution, when connecting', () => {
    expect(webhookUrlProblem('https://localhost/', strict)).toBeNull();
  });

  it('refuses port 0, which nothing can be reached on', () => {
    expect(webhookUrlProblem('https://hooks.example.com:0/', strict)).toBe('must not use port 0');
  });

  it('names the kind of address with the right article', () => {
    expect(webhookUrlProblem('https://[::ffff:127.0.0.1]/', strict)).toBe('must not point at an IPv4-mapped address (::ffff:7f00:1)');
    expect(webhookUrlProblem('https://0.0.0.0/', strict)).toBe('must not point at an unspecified address (0.0.0.0)');
    expect(webhookUrlProblem('https://10.0.0.1/', strict)).toBe('must not point at a private address (10.0.0.1)');
    expect(webhookUrlProblem('https://[fd00::1]/', strict)).toBe('must not point at a unique local (ULA) address (fd00::1)');
  });

  it('says "address" once for an IPv6 address that leads to a refused IPv4 one', () => {
    expect(webhookUrlProblem('https://[64:ff9b::7f00:1]/', strict)).toBe('must not point at a NAT64 address of a loopback address (64:ff9b::7f00:1)');
    expect(webhookUrlProblem('https://[2002:7f00:1::]/', strict)).toBe('must not point at a 6to4 address of a loopback address (2002:7f00:1::)');
  });

  it.each([
    ['with a trailing dot', 'https://134744072./'],
    ['percent-encoded', 'https://%31%33%34744072/'],
    ['in full-width digits', 'https://\uff18.\uff18.\uff18.\uff18/'],
    ['with a backslash for the slashes', 'https:\\\\0x08080808/'],
  ])('refuses an IPv4 address written other than in dotted decimal, however the parser reads it (%s)', (_, url) => {
    expect(webhookUrlProblem(url, strict)).toMatch(/^must not write an IP address in decimal, octal or hex form/);
  });

  it('accepts a public IPv4 address in dotted decimal, as written or with a port', () => {
    expect(webhookUrlProblem('https://8.8.8.8:8443/hook', strict)).toBeNull();
    expect(webhookUrlProblem('https://8.8.8.8\\hook', strict)).toBeNull();
  });

  it.each(['https://hooks.example.com/in#token=abc', 'https://hooks.example.com/in#'])(
    'refuses a fragment, which an HTTP client never sends (%s)',
    (url) => {
      expect(webhookUrlProblem(url, strict)).toBe(
        'must not have a fragment (#…): it is never sent to the receiver; put a token in the path or query instead',
      );
    },
  );

  it('refuses credentials in the URL', () => {
    expect(webhookUrlProblem('https://user:pass@hooks.example.com/', strict)).toMatch(/credentials/);
  });

  it.each([
    'https://127.0.0.1/',
    'https://10.0.0.1/',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[fd00::1]/',
    'https://2130706433/',
    'https://0177.0.0.1/',
    'https://0x7f.0.0.1/',
    'https://134744072/',
  ])('refuses %s at creation', (url) => {
    expect(webhookUrlProblem(url, strict)).toMatch(/^must not/);
    expect(webhookUrlProblem(url, { ...strict, allowPrivateNetworks: true })).toBeNull();
  });
});
