import { ipAllowed, rangeCoveredBy } from './ip-restriction';

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
    expect(ipAllowed('::ffff:127.0.0.1', ['127.0.0.1'])).toBe(true);
    expect(ipAllowed('::FFFF:10.1.2.3', ['10.1.2.3'])).toBe(true);
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
    expect(rangeCoveredBy('10.0.0.1', ['::1/128'])).toBe(false);
  });

  describe('IPv4 and IPv4-mapped IPv6 (::ffff:a.b.c.d) are one address space', () => {
    it('matches an IPv4-mapped client against IPv4 ranges and IPv4-mapped ranges of /96 or more, in either spelling', () => {
      for (const client of ['10.1.2.3', '::ffff:10.1.2.3', '::ffff:a01:203', '::FFFF:10.1.2.3']) {
        expect([client, ipAllowed(client, ['10.0.0.0/8'])]).toEqual([client, true]);
        expect([client, ipAllowed(client, ['::ffff:10.0.0.0/104'])]).toEqual([client, true]);
        expect([client, ipAllowed(client, ['::ffff:a00:0/104'])]).toEqual([client, true]);
        expect([client, ipAllowed(client, ['10.1.2.3'])]).toEqual([client, true]);
        expect([client, ipAllowed(client, ['::ffff:10.1.2.3'])]).toEqual([client, true]);
        expect([client, ipAllowed(client, ['11.0.0.0/8'])]).toEqual([client, false]);
        expect([client, ipAllowed(client, ['::ffff:11.0.0.0/104'])]).toEqual([client, false]);
      }
    });

    it('lets a key restricted to an IPv4 range grant the same range written IPv4-mapped, and tighter ones', () => {
      expect(rangeCoveredBy('::ffff:10.0.0.0/104', ['10.0.0.0/8'])).toBe(true);
      expect(rangeCoveredBy('::ffff:10.1.0.0/112', ['10.0.0.0/8'])).toBe(true);
      expect(rangeCoveredBy('::ffff:10.1.2.3', ['10.0.0.0/8'])).toBe(true);
      expect(rangeCoveredBy('::ffff:10.1.2.3/128', ['10.1.2.3'])).toBe(true);
      expect(rangeCoveredBy('::ffff:10.0.0.0/103', ['10.0.0.0/8'])).toBe(false);
      expect(rangeCoveredBy('::ffff:11.0.0.0/104', ['10.0.0.0/8'])).toBe(false);
    });

    it('lets a key restricted to an IPv4-mapped range grant the same range written as IPv4, and tighter ones', () => {
      expect(rangeCoveredBy('10.0.0.0/8', ['::ffff:10.0.0.0/104'])).toBe(true);
      expect(rangeCoveredBy('10.1.0.0/16', ['::ffff:10.0.0.0/104'])).toBe(true);
      expect(rangeCoveredBy('10.1.2.3', ['::ffff:10.0.0.0/104'])).toBe(true);
      expect(rangeCoveredBy('10.1.2.3', ['::ffff:a01:203'])).toBe(true);
      expect(rangeCoveredBy('10.0.0.0/7', ['::ffff:10.0.0.0/104'])).toBe(false);
      expect(rangeCoveredBy('11.0.0.1', ['::ffff:10.0.0.0/104'])).toBe(false);
    });

    it('keeps IPv4 ranges apart from IPv6 addresses outside ::ffff:0:0/96', () => {
      expect(ipAllowed('::1', ['0.0.0.0/0'])).toBe(false);
      expect(ipAllowed('::a01:203', ['10.0.0.0/8'])).toBe(false);
      expect(rangeCoveredBy('::1', ['0.0.0.0/0'])).toBe(false);
      expect(rangeCoveredBy('::/96', ['0.0.0.0/0'])).toBe(false);
    });

    it('judges a range the same way it judges the addresses in it: an IPv6 range that holds ::ffff:0:0/96 admits IPv4 clients', () => {
      expect(ipAllowed('10.1.2.3', ['::/0'])).toBe(true);
      expect(rangeCoveredBy('10.0.0.0/8', ['::/0'])).toBe(true);
      expect(rangeCoveredBy('10.0.0.0/8', ['::ffff:0:0/96'])).toBe(true);
      expect(rangeCoveredBy('10.0.0.0/8', ['2001:db8::/32'])).toBe(false);
    });
  });

  it('ignores a zone id (%eth0) stored before such values were refused: a remote peer has none', () => {
    expect(ipAllowed('fe80::1', ['fe80::1%eth0'])).toBe(true);
    expect(ipAllowed('fe80::2', ['fe80::1%eth0'])).toBe(false);
    expect(rangeCoveredBy('fe80::1', ['fe80::%eth0/64'])).toBe(true);
  });
});
