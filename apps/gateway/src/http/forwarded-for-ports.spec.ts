import { dropForwardedForPorts, withoutPort } from './forwarded-for-ports';

describe(withoutPort.name, () => {
  it.each([
    ['203.0.113.7:54321', '203.0.113.7'],
    ['203.0.113.7', '203.0.113.7'],
    ['[2001:db8::7]:443', '2001:db8::7'],
    ['[2001:db8::7]', '2001:db8::7'],
    ['2001:db8::7', '2001:db8::7'],
    ['::ffff:203.0.113.7', '::ffff:203.0.113.7'],
    [' 198.51.100.1:80 ', '198.51.100.1'],
    ['unknown', 'unknown'],
    ['203.0.113.7:port', '203.0.113.7:port'],
  ])('%s → %s', (entry, address) => {
    expect(withoutPort(entry)).toBe(address);
  });
});

describe(dropForwardedForPorts.name, () => {
  it('drops the port of every address in the list and leaves the order', () => {
    const headers = { 'x-forwarded-for': '203.0.113.7:54321, [2001:db8::1]:8080,10.0.0.1' };
    dropForwardedForPorts(headers);
    expect(headers['x-forwarded-for']).toBe('203.0.113.7, 2001:db8::1, 10.0.0.1');
  });

  it('leaves a header without ports, or none, as it was', () => {
    const plain = { 'x-forwarded-for': '203.0.113.7,10.0.0.1' };
    dropForwardedForPorts(plain);
    expect(plain['x-forwarded-for']).toBe('203.0.113.7,10.0.0.1');
    const none: Record<string, string> = {};
    dropForwardedForPorts(none);
    expect(none).toEqual({});
  });
});
