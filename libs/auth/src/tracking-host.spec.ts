import { canonicalTrackingHost } from './tracking-host';

describe(canonicalTrackingHost.name, () => {
  it('writes a host as a browser sends it, whatever its case, port, final dot or script', () => {
    expect(canonicalTrackingHost('Links.Bank.Example')).toBe('links.bank.example');
    expect(canonicalTrackingHost('links.bank.example:8443')).toBe('links.bank.example');
    expect(canonicalTrackingHost('links.bank.example.')).toBe('links.bank.example');
    expect(canonicalTrackingHost('links.bücher.de')).toBe('links.xn--bcher-kva.de');
    expect(canonicalTrackingHost('[0:0:0:0:0:0:0:1]:3000')).toBe('[::1]');
    expect(canonicalTrackingHost('127.0.0.1:3000')).toBe('127.0.0.1');
  });

  it('names no host for an empty Host or one that carries more than a host', () => {
    for (const odd of ['', 'evil.example@links.bank.example', 'links.bank.example/x', 'a b', 'links.bank.example#x', '[::1']) {
      expect(canonicalTrackingHost(odd)).toBeNull();
    }
  });
});
