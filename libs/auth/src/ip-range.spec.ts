import { parseIpRange, rangeContains } from './ip-range';

describe(parseIpRange.name, () => {
  it('places IPv4 in ::ffff:0:0/96, so both spellings of an address or range are one range', () => {
    expect(parseIpRange('10.0.0.0/8')).toEqual(parseIpRange('::ffff:10.0.0.0/104'));
    expect(parseIpRange('10.1.2.3')).toEqual(parseIpRange('::ffff:a01:203'));
    expect(parseIpRange('10.1.2.3')).toEqual({ network: 0xffff0a010203n, bits: 128 });
  });

  it('expands :: wherever it stands and a dotted tail', () => {
    expect(parseIpRange('2001:db8::1')!.network).toBe(0x20010db8000000000000000000000001n);
    expect(parseIpRange('::1')!.network).toBe(1n);
    expect(parseIpRange('fe80::')!.network).toBe(0xfe80n << 112n);
    expect(parseIpRange('1:2:3:4:5:6:7:8')!.network).toBe(0x00010002000300040005000600070008n);
    expect(parseIpRange('64:ff9b::192.0.2.1')!.network).toBe(0x0064ff9b0000000000000000c0000201n);
  });

  it('keeps the network part of a range only', () => {
    expect(parseIpRange('10.1.2.3/8')).toEqual(parseIpRange('10.0.0.0/8'));
    expect(parseIpRange('::/0')).toEqual({ network: 0n, bits: 0 });
  });

  it('is null for what names no range', () => {
    for (const text of ['', 'x', '1.2.3', '10.0.0.0/33', '::/129', '10.0.0.0/8/8', '10.0.0.0/x', '10.0.0.0/']) expect([text, parseIpRange(text)]).toEqual([text, null]);
  });
});

describe(rangeContains.name, () => {
  const range = (text: string) => parseIpRange(text)!;

  it('holds a range inside it and not one that reaches out of it', () => {
    expect(rangeContains(range('10.0.0.0/8'), range('10.255.0.0/16'))).toBe(true);
    expect(rangeContains(range('10.0.0.0/8'), range('10.0.0.0/7'))).toBe(false);
    expect(rangeContains(range('10.0.0.0/8'), range('11.0.0.0/16'))).toBe(false);
    expect(rangeContains(range('::/0'), range('10.0.0.0/8'))).toBe(true);
  });
});
