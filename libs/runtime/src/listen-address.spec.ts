import { describeListeners, hostAndPort } from './listen-address';

describe(describeListeners.name, () => {
  it('marks an address that takes every interface, IPv4 or IPv6, as such', () => {
    expect(describeListeners([{ address: '0.0.0.0', port: 3000 }], 'http')).toBe('http://0.0.0.0:3000 (all interfaces)');
    expect(describeListeners([{ address: '::', port: 3000 }], 'http')).toBe('http://[::]:3000 (all interfaces)');
  });

  it('names each address a host bound, as it is', () => {
    // What HOST=localhost binds: both loopbacks.
    const both = [
      { address: '127.0.0.1', port: 3000 },
      { address: '::1', port: 3000 },
    ];
    expect(describeListeners(both, 'http')).toBe('http://127.0.0.1:3000 and http://[::1]:3000');
    expect(describeListeners([{ address: '192.0.2.7', port: 5353 }])).toBe('192.0.2.7:5353');
    expect(describeListeners(['/run/mailroom/gateway.sock'], 'http')).toBe('/run/mailroom/gateway.sock');
  });
});

describe(hostAndPort.name, () => {
  it('puts an IPv6 address in brackets, and nothing else', () => {
    expect([hostAndPort('::1', 53), hostAndPort('127.0.0.1', 53), hostAndPort('localhost', 53)]).toEqual(['[::1]:53', '127.0.0.1:53', 'localhost:53']);
  });
});
