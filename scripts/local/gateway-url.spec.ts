import { gatewayUrl } from './gateway-url';

describe(gatewayUrl.name, () => {
  it('reaches a gateway that listens on every IPv4 address through localhost', () => {
    expect(gatewayUrl('0.0.0.0', 3000)).toBe('http://localhost:3000');
  });

  it('reaches one that listens on every address, IPv6 and IPv4 (HOST=::), through localhost too', () => {
    expect(gatewayUrl('::', 3000)).toBe('http://localhost:3000');
  });

  it('puts an IPv6 address in brackets, so the URL parses', () => {
    expect(gatewayUrl('::1', 3000)).toBe('http://[::1]:3000');
    expect(new URL(gatewayUrl('fe80::1', 8080)).port).toBe('8080');
  });

  it('keeps an IPv4 address or host name as it is', () => {
    expect(gatewayUrl('127.0.0.1', 3000)).toBe('http://127.0.0.1:3000');
    expect(gatewayUrl('mailroom.internal', 3000)).toBe('http://mailroom.internal:3000');
  });
});
