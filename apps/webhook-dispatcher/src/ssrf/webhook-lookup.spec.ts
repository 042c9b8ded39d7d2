import { webhookLookup } from './webhook-lookup';

describe(webhookLookup.name, () => {
  it("keeps Node's getaddrinfo only for private networks without DNS_SERVERS (development: /etc/hosts, localhost)", () => {
    expect(webhookLookup({ allowPrivateNetworks: true, dnsServers: [], dnsTimeoutMs: 2_000 })).toBeUndefined();
  });

  it('resolves through c-ares with the SSRF guard on, and whenever DNS_SERVERS is set', () => {
    expect(webhookLookup({ allowPrivateNetworks: false, dnsServers: [], dnsTimeoutMs: 2_000 })).toBeInstanceOf(Function);
    expect(webhookLookup({ allowPrivateNetworks: true, dnsServers: ['127.0.0.1:5353'], dnsTimeoutMs: 2_000 })).toBeInstanceOf(Function);
  });
});
