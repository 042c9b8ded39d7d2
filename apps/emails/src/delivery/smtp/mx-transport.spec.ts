import { MailRoute } from '../mx/mx-resolver';
import { MxTransport } from './mx-transport';

const SETTINGS = { port: 25, heloName: 'mailroom.test', timeoutMs: 1000, messageTimeoutMs: 1000, maxConnections: 1 };

/** Recipients are sent to as written ('Ann@…'); their outcomes are keyed by the lower-case address, as every transport's are. */
describe('MxTransport outcomes of recipients it never sends to', () => {
  const deliverWith = async (route: MailRoute, recipients: string[]) => {
    const transport = new MxTransport({ route: async () => route }, SETTINGS);
    try {
      return await transport.deliver('bounces@acme.test', recipients, Buffer.from('Subject: hi\r\n\r\nhi\r\n'));
    } finally {
      transport.close();
    }
  };

  it('keys the outcome of a domain that takes no mail by the lower-case address', async () => {
    const outcome = { kind: 'permanent', code: 550, reply: '550 5.1.2 nowhere.test does not exist' } as const;
    const outcomes = await deliverWith({ kind: 'unroutable', outcome }, ['Ann@nowhere.test']);
    expect([...outcomes]).toEqual([['ann@nowhere.test', outcome]]);
  });

  it('keys the outcome of a route with no host by the lower-case address', async () => {
    const outcomes = await deliverWith({ kind: 'hosts', hosts: [], ttlSeconds: 60 }, ['Ann@nowhere.test']);
    expect([...outcomes.keys()]).toEqual(['ann@nowhere.test']);
  });
});
