import { clientKeyOf } from './client-key';

describe(clientKeyOf.name, () => {
  it('is the address for IPv4, and the /64 for IPv6, which one subscriber holds whole', () => {
    expect(clientKeyOf('203.0.113.1')).toBe(clientKeyOf('::ffff:203.0.113.1'));
    expect(clientKeyOf('203.0.113.1')).toBe(clientKeyOf('::ffff:cb00:7101'));
    expect(clientKeyOf('203.0.113.1')).toBe(clientKeyOf('0:0:0:0:0:ffff:203.0.113.1'));
    expect(clientKeyOf('203.0.113.1')).not.toBe(clientKeyOf('203.0.113.2'));
    expect(clientKeyOf('2001:db8:1:2::1')).toBe(clientKeyOf('2001:db8:1:2:ffff:ffff:ffff:ffff'));
    expect(clientKeyOf('2001:db8:1:2::1')).not.toBe(clientKeyOf('2001:db8:1:3::1'));
  });

  it('keeps an address it cannot read as it is', () => {
    expect(clientKeyOf('not-an-ip')).toBe('not-an-ip');
  });
});
