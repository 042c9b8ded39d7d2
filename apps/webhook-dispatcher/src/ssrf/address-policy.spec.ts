import { looseIpv4, refusedAddressReason } from './address-policy';

describe(refusedAddressReason.name, () => {
  it.each([
    ['0.0.0.0', 'unspecified'],
    ['10.1.2.3', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.254', 'carrier-grade NAT'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['169.254.169.254', 'cloud metadata'],
    ['169.254.10.10', 'link-local'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.0.0.170', 'IETF protocol assignments'],
    ['192.168.1.1', 'private'],
    ['198.18.0.1', 'benchmarking'],
    ['224.0.0.251', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::ffff:127.0.0.1', 'IPv4-mapped'],
    ['::ffff:8.8.8.8', 'IPv4-mapped'],
    ['::ffff:7f00:1', 'IPv4-mapped'],
    ['::127.0.0.1', 'IPv4-compatible'],
    ['fc00::1', 'unique local (ULA)'],
    ['fd00:ec2::254', 'unique local (ULA)'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['ff02::1', 'multicast'],
    ['64:ff9b::a00:1', 'NAT64 of a private address'],
    ['192.0.2.10', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.255', 'documentation'],
    ['192.88.99.1', '6to4 relay anycast'],
    ['2002:7f00:1::', '6to4 of a loopback address'],
    ['2002:a9fe:a9fe::1', '6to4 of a cloud metadata address'],
    ['2001:db8::1', 'documentation'],
  ])('refuses %s (%s)', (address, reason) => {
    expect(refusedAddressReason(address)).toBe(reason);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '169.253.1.1', '2001:4860:4860::8888', '2606:4700::1111', '64:ff9b::808:808', '2002:808:808::1', '192.0.3.1', '203.0.114.1'])(
    'allows the public address %s',
    (address) => {
      expect(refusedAddressReason(address)).toBeNull();
    },
  );

  it('says nothing about a host name (that is checked after resolution)', () => {
    expect(refusedAddressReason('example.com')).toBeNull();
  });
});

describe(looseIpv4.name, () => {
  it.each([
    ['2130706433', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['0x7f.0.0.1', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['017700000001', '127.0.0.1'],
    ['3232235777', '192.168.1.1'],
    ['169.254.43518', '169.254.169.254'],
  ])('reads %s as %s', (host, address) => {
    expect(looseIpv4(host)).toBe(address);
  });

  it('is null for names and out-of-range values', () => {
    expect(looseIpv4('example.com')).toBeNull();
    expect(looseIpv4('4294967296')).toBeNull();
    expect(looseIpv4('256.1.1.1')).toBeNull();
    expect(looseIpv4('08.1.1.1')).toBeNull();
  });
});
