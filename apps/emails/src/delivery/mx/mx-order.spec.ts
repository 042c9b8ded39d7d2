import { isNullMx, orderMxHosts } from './mx-order';

describe(orderMxHosts.name, () => {
  it('orders by ascending preference', () => {
    const records = [
      { exchange: 'backup.example.com', priority: 20 },
      { exchange: 'primary.example.com', priority: 10 },
      { exchange: 'last.example.com.', priority: 30 },
    ];
    expect(orderMxHosts(records)).toEqual(['primary.example.com', 'backup.example.com', 'last.example.com']);
  });

  it('shuffles hosts of equal preference and keeps them ahead of worse ones', () => {
    const records = [
      { exchange: 'a.example.com', priority: 10 },
      { exchange: 'b.example.com', priority: 10 },
      { exchange: 'c.example.com', priority: 20 },
    ];
    expect(orderMxHosts(records, () => 0)).toEqual(['b.example.com', 'a.example.com', 'c.example.com']);
    expect(orderMxHosts(records, () => 0.99)).toEqual(['a.example.com', 'b.example.com', 'c.example.com']);
    const firsts = new Set(Array.from({ length: 50 }, () => orderMxHosts(records)[0]));
    expect(firsts).toEqual(new Set(['a.example.com', 'b.example.com']));
  });

  it('lists a host once even when it appears twice', () => {
    expect(orderMxHosts([{ exchange: 'MX.example.com', priority: 5 }, { exchange: 'mx.example.com.', priority: 5 }])).toEqual(['mx.example.com']);
  });
});

describe(isNullMx.name, () => {
  it('recognizes the null MX of RFC 7505', () => {
    expect(isNullMx([{ exchange: '', priority: 0 }])).toBe(true);
    expect(isNullMx([{ exchange: '.', priority: 0 }])).toBe(true);
    expect(isNullMx([{ exchange: 'mx.example.com', priority: 0 }])).toBe(false);
  });
});
