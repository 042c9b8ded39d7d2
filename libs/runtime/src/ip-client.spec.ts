import { ipClient } from './ip-client';

describe(ipClient.name, () => {
  it('is the address for IPv4, and the /64 for IPv6, which one subscriber holds whole', () => {
    expect(ipClient('203.0.113.1')).toBe(ipClient('::ffff:203.0.113.1'));
    expect(ipClient('203.0.113.1')).toBe(ipClient('::ffff:cb00:7101'));
    expect(ipClient('203.0.113.1')).toBe(ipClient('0:0:0:0:0:ffff:203.0.113.1'));
    expect(ipClient('203.0.113.1')).not.toBe(ipClient('203.0.113.2'));
    expect(ipClient('2001:db8:1:2::1')).toBe(ipClient('2001:db8:1:2:ffff:ffff:ffff:ffff'));
    expect(ipClient('2001:db8:1:2::1')).not.toBe(ipClient('2001:db8:1:3::1'));
  });

  it('keeps an address it cannot read as it is', () => {
    expect(ipClient('not-an-ip')).toBe('not-an-ip');
  });
});
