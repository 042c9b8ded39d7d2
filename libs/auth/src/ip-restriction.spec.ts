import { ipAllowed, normalizeIp, rangeCoveredBy } from './ip-restriction';

describe('ip restrictions', () => {
  it('allows everything when the key has no restrictions', () => {
    expect(ipAllowed('203.0.113.9', [])).toBe(true);
    expect(ipAllowed('2001:db8::1', [])).toBe(true);
  });

  it('matches single IPv4 addresses and CIDR ranges', () => {
    expect(ipAllowed('127.0.0.1', ['127.0.0.1'])).toBe(true);
    expect(ipAllowed('127.0.0.2', ['127.0.0.1'])).toBe(false);
    expect(ipAllowed('10.20.30.40', ['10.0.0.0/8'])).toBe(true);
    expect(ipAllowed('11.0.0.1', ['10.0.0.0/8'])).toBe(false);
    expect(ipAllowed('192.168.1.255', ['192.168.1.0/24'])).toBe(true);
    expect(ipAllowed('192.168.2.0', ['192.168.1.0/24'])).toBe(false);
    expect(ipAllowed('8.8.8.8', ['0.0.0.0/0'])).toBe(true);
  });

  it('matches IPv6 addresses and ranges', () => {
    expect(ipAllowed('::1', ['::1/128'])).toBe(true);
    expect(ipAllowed('::2', ['::1/128'])).toBe(false);
    expect(ipAllowed('2001:db8:0:1::5', ['2001:db8::/32'])).toBe(true);
    expect(ipAllowed('2001:db9::5', ['2001:db8::/32'])).toBe(false);
    expect(ipAllowed('2001:0db8::0001', ['2001:db8::1'])).toBe(true);
  });

  it('treats IPv4-mapped IPv6 clients (::ffff:a.b.c.d) as IPv4', () => {
    expect(normalizeIp('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(normalizeIp('::FFFF:10.1.2.3')).toBe('10.1.2.3');
    expect(ipAllowed('::ffff:10.1.2.3', ['10.0.0.0/8'])).toBe(true);
    expect(ipAllowed('::ffff:11.1.2.3', ['10.0.0.0/8'])).toBe(false);
  });

  it('never matches across families or an unparseable client address', () => {
    expect(ipAllowed('127.0.0.1', ['::1'])).toBe(false);
    expect(ipAllowed('::1', ['127.0.0.1'])).toBe(false);
    expect(ipAllowed('not-an-ip', ['0.0.0.0/0'])).toBe(false);
    expect(ipAllowed('', ['127.0.0.1'])).toBe(false);
  });

  it('says whether a range lies entirely inside one of the outer ranges', () => {
    expect(rangeCoveredBy('10.1.0.0/16', ['10.0.0.0/8'])).toBe(true);
    expect(rangeCoveredBy('10.1.2.3', ['10.0.0.0/8'])).toBe(true);
    expect(rangeCoveredBy('10.0.0.0/8', ['10.0.0.0/8'])).toBe(true);
    expect(rangeCoveredBy('10.0.0.0/7', ['10.0.0.0/8'])).toBe(false);
    expect(rangeCoveredBy('0.0.0.0/0', ['10.0.0.0/8'])).toBe(false);
    expect(rangeCoveredBy('11.0.0.1', ['10.0.0.0/8'])).toBe(false);
    expect(rangeCoveredBy('10.0.0.0/8', ['10.0.0.1'])).toBe(false);
    expect(rangeCoveredBy('2001:db8:1::/48', ['2001:db8::/32'])).toBe(true);
    expect(rangeCoveredBy('2001:db8::/16', ['2001:db8::/32'])).toBe(false);
    expect(rangeCoveredBy('10.0.0.1', ['::/0'])).toBe(false);
  });
});
