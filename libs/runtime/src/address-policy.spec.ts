import { refusedAddressReason } from './address-policy';

describe(refusedAddressReason.name, () => {
  it.each([
    ['0.0.0.0', 'an unspecified address'],
    ['10.1.2.3', 'a private address'],
    ['100.64.0.1', 'a carrier-grade NAT address'],
    ['100.127.255.254', 'a carrier-grade NAT address'],
    ['127.0.0.1', 'a loopback address'],
    ['127.255.0.9', 'a loopback address'],
    ['169.254.169.254', 'a cloud metadata address'],
    ['169.254.10.10', 'a link-local address'],
    ['172.16.0.1', 'a private address'],
    ['172.31.255.255', 'a private address'],
    ['192.0.0.170', 'an IETF protocol assignments address'],
    ['192.168.1.1', 'a private address'],
    ['198.18.0.1', 'a benchmarking address'],
    ['224.0.0.251', 'a multicast address'],
    ['255.255.255.255', 'a reserved address'],
    ['::', 'an unspecified address'],
    ['::1', 'a loopback address'],
    ['[::1]', 'a loopback address'],
    ['::ffff:127.0.0.1', 'an IPv4-mapped address'],
    ['::ffff:8.8.8.8', 'an IPv4-mapped address'],
    ['::ffff:7f00:1', 'an IPv4-mapped address'],
    ['::127.0.0.1', 'an IPv4-compatible address'],
    ['fc00::1', 'a unique local (ULA) address'],
    ['fd00:ec2::254', 'a unique local (ULA) address'],
    ['fe80::1', 'a link-local address'],
    ['fe80::1%eth0', 'a link-local address'],
    ['ff02::1', 'a multicast address'],
    ['64:ff9b::a00:1', 'a NAT64 address of a private address'],
    ['64:ff9b::7f00:1', 'a NAT64 address of a loopback address'],
    ['64:ff9b::', 'a NAT64 address of an unspecified address'],
    ['192.0.2.10', 'a documentation address'],
    ['198.51.100.7', 'a documentation address'],
    ['203.0.113.255', 'a documentation address'],
    ['192.88.99.1', 'a 6to4 relay anycast address'],
    ['2002:7f00:1::', 'a 6to4 address of a loopback address'],
    ['2002:a9fe:a9fe::1', 'a 6to4 address of a cloud metadata address'],
    ['2001:db8::1', 'a documentation address'],
    ['3fff::1', 'a documentation address'],
    ['::ffff:0:7f00:1', 'an IPv4-translated address'],
    ['::ffff:0:808:808', 'an IPv4-translated address'],
    ['64:ff9b:1::a00:1', 'a local-use NAT64 address'],
    ['64:ff9b:1:ffff::1', 'a local-use NAT64 address'],
    ['100::1', 'a discard-only address'],
    ['2001::53aa:64c:f5ff:fffe', 'an IETF protocol assignments address'],
    ['2001:2::1', 'an IETF protocol assignments address'],
    ['2001:1ff:ffff::1', 'an IETF protocol assignments address'],
  ])('refuses %s as %s', (address, reason) => {
    expect(refusedAddressReason(address)).toBe(reason);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '169.253.1.1', '2001:4860:4860::8888', '2606:4700::1111', '64:ff9b::808:808', '2002:808:808::1', '192.0.3.1', '203.0.114.1', '2001:200::1', '64:ff9b:2::1', '4000::1', '101::1'])(
    'allows the public address %s',
    (address) => {
      expect(refusedAddressReason(address)).toBeNull();
    },
  );

  it('says nothing about a host name (that is checked after resolution)', () => {
    expect(refusedAddressReason('example.com')).toBeNull();
  });
});
