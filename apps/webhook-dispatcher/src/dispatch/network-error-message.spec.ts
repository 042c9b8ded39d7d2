import { networkErrorMessage } from './network-error-message';

const refused = (address: string) => Object.assign(new Error(`connect ECONNREFUSED ${address}`), { code: 'ECONNREFUSED' });

describe(networkErrorMessage.name, () => {
  it("keeps an error's own message", () => {
    expect(networkErrorMessage(refused('93.184.216.34:443'))).toBe('connect ECONNREFUSED 93.184.216.34:443');
  });

  it('names what happened at each address when every attempt failed (an AggregateError has no message)', () => {
    const all = Object.assign(new AggregateError([refused('93.184.216.34:443'), refused('[2606:2800:220:1::1]:443'), refused('93.184.216.34:443')]), { code: 'ECONNREFUSED' });
    expect(all.message).toBe('');
    expect(networkErrorMessage(all)).toBe('connect ECONNREFUSED 93.184.216.34:443; connect ECONNREFUSED [2606:2800:220:1::1]:443');
  });

  it('falls back to the code, then the name, when nothing says more', () => {
    expect(networkErrorMessage(Object.assign(new AggregateError([]), { code: 'ETIMEDOUT' }))).toBe('ETIMEDOUT');
    expect(networkErrorMessage(new AggregateError([]))).toBe('AggregateError');
  });
});
