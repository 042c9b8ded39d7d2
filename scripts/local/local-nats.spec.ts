import { ensureNats } from './local-nats';

describe(ensureNats.name, () => {
  it('names a NATS_URL where nothing answers without its credentials', async () => {
    // .invalid never resolves (RFC 2606), so nothing answers there and it is not loopback.
    const failure = ensureNats('nats://app:hunter2@nats.invalid:4222', '/nonexistent', () => undefined);
    await expect(failure).rejects.toThrow('Nothing answers at NATS_URL=nats://nats.invalid:4222. Start NATS there');
  });
});
