import { clientNetwork, ResponseRateLimit, tcpClient } from './response-rate-limit';

describe(ResponseRateLimit.name, () => {
  const limitAt = (perSecond: number) => {
    const clock = { now: 1_000_000 };
    return { limit: new ResponseRateLimit(perSecond, () => clock.now), clock };
  };

  it('answers a burst of perSecond, then slips every second query and drops the rest', () => {
    const { limit } = limitAt(3);
    const verdicts = Array.from({ length: 9 }, () => limit.verdict('192.0.2.7'));
    expect(verdicts).toEqual(['answer', 'answer', 'answer', 'slip', 'drop', 'slip', 'drop', 'slip', 'drop']);
  });

  it('refills at perSecond, up to one burst', () => {
    const { limit, clock } = limitAt(4);
    for (let i = 0; i < 4; i++) limit.verdict('192.0.2.7');
    expect(limit.verdict('192.0.2.7')).not.toBe('answer');
    clock.now += 500; // two answers' worth
    expect([limit.verdict('192.0.2.7'), limit.verdict('192.0.2.7')]).toEqual(['answer', 'answer']);
    expect(limit.verdict('192.0.2.7')).not.toBe('answer');
    clock.now += 60_000; // a long pause refills one burst, not more
    expect(Array.from({ length: 5 }, () => limit.verdict('192.0.2.7')).filter((verdict) => verdict === 'answer')).toHaveLength(4);
  });

  it('counts a network as one client and other networks apart', () => {
    const { limit } = limitAt(1);
    expect(limit.verdict('192.0.2.7')).toBe('answer');
    expect(limit.verdict('192.0.2.200')).toBe('slip');
    expect(limit.verdict('192.0.3.7')).toBe('answer');
    expect(limit.verdict('2001:db8:1:2ff::1')).toBe('answer');
    expect(limit.verdict('2001:db8:1:200::9')).toBe('slip');
  });

  it('counts each IPv4 address apart and each IPv6 /64 as one when keyed by tcpClient, an IPv4-mapped address as its IPv4 one', () => {
    const clock = { now: 1_000_000 };
    const limit = new ResponseRateLimit(1, () => clock.now, tcpClient);
    expect(limit.verdict('192.0.2.7')).toBe('answer');
    expect(limit.verdict('::ffff:192.0.2.7')).not.toBe('answer');
    expect(limit.verdict('192.0.2.200')).toBe('answer');
    expect(limit.verdict('2001:db8:1:2ff::1')).toBe('answer');
    expect(limit.verdict('2001:db8:1:2ff:a:b:c:d')).not.toBe('answer');
    expect(limit.verdict('2001:db8:1:2fe::1')).toBe('answer');
  });

  it('answers everything when the limit is 0', () => {
    const { limit } = limitAt(0);
    expect(Array.from({ length: 100 }, () => limit.verdict('192.0.2.7')).every((verdict) => verdict === 'answer')).toBe(true);
  });
});

describe(clientNetwork.name, () => {
  it.each([
    ['198.51.100.23', '198.51.100.0/24'],
    ['::ffff:198.51.100.23', '198.51.100.0/24'],
    ['2001:db8:abcd:12ef:1::1', '2001:0db8:abcd:1200::/56'],
    ['2001:DB8::1', '2001:0db8:0000:0000::/56'],
    ['::1', '0000:0000:0000:0000::/56'],
    ['fe80::1%eth0', 'fe80:0000:0000:0000::/56'],
    ['64:ff9b::192.0.2.33', '0064:ff9b:0000:0000::/56'],
  ])('counts %s under %s', (address, network) => {
    expect(clientNetwork(address)).toBe(network);
  });
});

describe(tcpClient.name, () => {
  it.each([
    ['198.51.100.23', '198.51.100.23'],
    ['::ffff:198.51.100.23', '198.51.100.23'],
    ['2001:db8:abcd:12ef:1::1', '2001:0db8:abcd:12ef::/64'],
    ['2001:DB8:abcd:12ef:ffff:ffff:ffff:ffff', '2001:0db8:abcd:12ef::/64'],
    ['::1', '0000:0000:0000:0000::/64'],
    ['fe80::1%eth0', 'fe80:0000:0000:0000::/64'],
  ])('counts a connection from %s as %s', (address, client) => {
    expect(tcpClient(address)).toBe(client);
  });
});
