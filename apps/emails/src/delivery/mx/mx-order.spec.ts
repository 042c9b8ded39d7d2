import { inSendingOrder, isNullMx, orderMxHosts, sendingOrderKey } from './mx-order';

const names = (hosts: Array<{ name: string }>) => hosts.map((host) => host.name);

describe(orderMxHosts.name, () => {
  it('orders by ascending preference', () => {
    const records = [
      { exchange: 'backup.example.com', priority: 20 },
      { exchange: 'primary.example.com', priority: 10 },
      { exchange: 'last.example.com.', priority: 30 },
    ];
    expect(orderMxHosts(records)).toEqual([
      { name: 'primary.example.com', preference: 10 },
      { name: 'backup.example.com', preference: 20 },
      { name: 'last.example.com', preference: 30 },
    ]);
  });

  it('shuffles hosts of equal preference and keeps them ahead of worse ones', () => {
    const records = [
      { exchange: 'a.example.com', priority: 10 },
      { exchange: 'b.example.com', priority: 10 },
      { exchange: 'c.example.com', priority: 20 },
    ];
    expect(names(orderMxHosts(records, () => 0))).toEqual(['b.example.com', 'a.example.com', 'c.example.com']);
    expect(names(orderMxHosts(records, () => 0.99))).toEqual(['a.example.com', 'b.example.com', 'c.example.com']);
    const firsts = new Set(Array.from({ length: 50 }, () => orderMxHosts(records)[0].name));
    expect(firsts).toEqual(new Set(['a.example.com', 'b.example.com']));
  });

  it('lists a host once even when it appears twice', () => {
    expect(orderMxHosts([{ exchange: 'MX.example.com', priority: 5 }, { exchange: 'mx.example.com.', priority: 5 }])).toEqual([{ name: 'mx.example.com', preference: 5 }]);
  });
});

describe(inSendingOrder.name, () => {
  it('orders hosts of any shape by preference, shuffling equals, so a cached route still spreads the load', () => {
    const hosts = [
      { name: 'c', preference: 20, addresses: ['192.0.2.3'] },
      { name: 'a', preference: 10, addresses: ['192.0.2.1'] },
      { name: 'b', preference: 10, addresses: ['192.0.2.2'] },
    ];
    expect(names(inSendingOrder(hosts, () => 0))).toEqual(['b', 'a', 'c']);
    expect(names(inSendingOrder(hosts, () => 0.99))).toEqual(['a', 'b', 'c']);
    expect(inSendingOrder(hosts, () => 0)[2]).toBe(hosts[0]);
  });
});

describe(isNullMx.name, () => {
  it('recognizes the null MX of RFC 7505', () => {
    expect(isNullMx([{ exchange: '', priority: 0 }])).toBe(true);
    expect(isNullMx([{ exchange: '.', priority: 0 }])).toBe(true);
    expect(isNullMx([{ exchange: 'mx.example.com', priority: 0 }])).toBe(false);
  });
});

describe(sendingOrderKey.name, () => {
  const hosts = (...entries: Array<[string, number]>) => entries.map(([name, preference]) => ({ name, preference }));

  it('is the same for the same hosts in the same order of preference, whatever the preference values or the order listed', () => {
    const key = sendingOrderKey(hosts(['a.mx.test', 10], ['b.mx.test', 10], ['c.mx.test', 20]));
    expect(sendingOrderKey(hosts(['c.mx.test', 50], ['b.mx.test', 5], ['a.mx.test', 5]))).toBe(key);
  });

  it('differs for the same hosts ranked the other way round, or tied differently', () => {
    const key = sendingOrderKey(hosts(['x.mx.test', 10], ['y.mx.test', 20]));
    expect(sendingOrderKey(hosts(['y.mx.test', 10], ['x.mx.test', 20]))).not.toBe(key);
    expect(sendingOrderKey(hosts(['x.mx.test', 10], ['y.mx.test', 10]))).not.toBe(key);
  });
});
