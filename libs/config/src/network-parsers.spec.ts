import { asDnsServer, asOptionalServerUrl } from './network-parsers';

describe('network parsers', () => {
  it('accepts DNS servers with and without a port', () => {
    expect(asDnsServer('127.0.0.1')).toBe('127.0.0.1');
    expect(asDnsServer('127.0.0.1:5353')).toBe('127.0.0.1:5353');
    expect(asDnsServer('::1')).toBe('::1');
    expect(asDnsServer('[::1]:53')).toBe('[::1]:53');
    expect(() => asDnsServer('dns.example.com')).toThrow(/not a DNS server/);
    expect(() => asDnsServer('127.0.0.1:99999')).toThrow(/not a DNS server/);
  });

  it('treats an empty optional URL as unset and still checks the scheme', () => {
    expect(asOptionalServerUrl('smtp', 'smtps')('')).toBe('');
    expect(asOptionalServerUrl('smtp', 'smtps')('smtp://u:p@relay:587')).toBe('smtp://u:p@relay:587');
    expect(() => asOptionalServerUrl('smtp', 'smtps')('http://relay')).toThrow(/must use smtp or smtps/);
    expect(() => asOptionalServerUrl('smtp', 'smtps')('smtp://')).toThrow("must name a host, got 'smtp://'");
  });
});
