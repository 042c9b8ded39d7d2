import type { NatsConnection } from 'nats';
import { DrainingNatsServer } from './draining-nats-server';

describe(DrainingNatsServer.name, () => {
  it('says it listens only once the server has its subscriptions (a flush answered), not when they are written', async () => {
    let flushed: () => void = () => undefined;
    const client = { subscribe: jest.fn(), flush: () => new Promise<void>((resolve) => (flushed = resolve)) } as unknown as NatsConnection;
    const server = new DrainingNatsServer({});
    (server as unknown as { natsClient: NatsConnection }).natsClient = client;
    const listening = jest.fn();
    server.start(listening);
    await new Promise((resolve) => setImmediate(resolve));
    // Until then a request to a just-restarted service found no responders, and the gateway answered it 503.
    expect(listening).not.toHaveBeenCalled();
    flushed();
    await new Promise((resolve) => setImmediate(resolve));
    expect(listening).toHaveBeenCalledWith();
  });
});
