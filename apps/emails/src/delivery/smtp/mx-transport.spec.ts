import { AddressInfo, createServer, Server, Socket } from 'node:net';
import { eventually, startTestSmtp } from '@mailroom/testing';
import { StsPolicySource } from '../mta-sts/sts-policies';
import { MailRoute } from '../mx/mx-resolver';
import { MxTransport } from './mx-transport';

const SETTINGS = { port: 25, heloName: 'mailroom.test', timeoutMs: 1000, messageTimeoutMs: 1000, maxConnections: 1, trustedCas: [] };

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
    expect(outcomes.get('ann@nowhere.test')?.reply).toBe('no mail host could be reached');
  });
});

describe('MxTransport under MTA-STS policies, for recipients it never sends to', () => {
  // A host on a port nothing listens on: reaching it at all would show as a connection failure, not the outcomes below.
  const route: MailRoute = { kind: 'hosts', hosts: [{ name: 'mx.example.test', preference: 10, addresses: ['127.0.0.1'] }], ttlSeconds: 60 };
  const deliverUnder = async (policies: StsPolicySource) => {
    const transport = new MxTransport({ route: async () => route }, Object.assign({}, SETTINGS, { port: 1 }), policies);
    try {
      return await transport.deliver('bounces@acme.test', ['Ann@example.test'], Buffer.from('Subject: hi\r\n\r\nhi\r\n'));
    } finally {
      transport.close();
    }
  };

  it('holds back, as temporary, a recipient none of whose MX hosts an enforced policy lists', async () => {
    const outcomes = await deliverUnder({ policyFor: async () => ({ mode: 'enforce', mx: ['*.provider.test'], maxAgeSeconds: 86400 }) });
    expect(outcomes.get('ann@example.test')).toEqual({ kind: 'temporary', code: null, reply: 'MTA-STS: no MX host of example.test matches its policy (mx: *.provider.test)' });
  });

  it('holds back, as temporary, a recipient whose domain policy cannot be read, rather than taking it for none', async () => {
    const outcomes = await deliverUnder({ policyFor: () => Promise.reject(new Error('Connection terminated')) });
    expect(outcomes.get('ann@example.test')).toEqual({ kind: 'temporary', code: null, reply: '4.4.3 MTA-STS policy of example.test could not be read (Connection terminated)' });
  });
});

describe('MxTransport carrying a TLS report (RFC 8460 §3)', () => {
  it('delivers it despite an enforced policy its MX hosts fail, and counts its session in no report', async () => {
    // The host offers no STARTTLS and the policy lists another host: ordinary mail waits; a report must still go.
    const smtp = await startTestSmtp({ disableStartTls: true });
    const route: MailRoute = { kind: 'hosts', hosts: [{ name: 'mx.example.test', preference: 10, addresses: ['127.0.0.1'] }], ttlSeconds: 60 };
    const policies: StsPolicySource = { policyFor: async () => ({ mode: 'enforce', mx: ['*.provider.test'], maxAgeSeconds: 86400 }) };
    const recorded: unknown[] = [];
    const transport = new MxTransport({ route: async () => route }, Object.assign({}, SETTINGS, { port: smtp.port }), policies, { record: (...session) => recorded.push(session) });
    const raw = Buffer.from('Subject: report\r\n\r\nreport\r\n');
    try {
      const ordinary = await transport.deliver('bounces@acme.test', ['tls@example.test'], raw);
      expect(ordinary.get('tls@example.test')).toMatchObject({ kind: 'temporary', reply: expect.stringContaining('MTA-STS') });
      expect(recorded).toHaveLength(1);
      recorded.length = 0;
      const report = await transport.deliver('tls@acme.test', ['tls@example.test'], raw, { tlsReport: true });
      expect(report.get('tls@example.test')).toMatchObject({ kind: 'accepted' });
      expect(smtp.messages.map((message) => [message.mailFrom, message.rcptTo, message.secure])).toEqual([['tls@acme.test', ['tls@example.test'], false]]);
      expect(recorded).toEqual([]);
    } finally {
      transport.close();
      await smtp.stop();
    }
  });
});

/**
 * Hosts that take the connection and never greet (a tarpit, a host whose SMTP service hangs), on loopback
 * addresses sharing one port, as a domain's MX hosts do.
 */
async function silentHosts(count: number): Promise<{ port: number; addresses: string[]; connections: () => number; close: () => Promise<void> }> {
  const sockets: Socket[] = [];
  const servers: Server[] = [];
  const listen = (address: string, port: number) =>
    new Promise<Server>((resolve, reject) => {
      const server = createServer((socket) => sockets.push(socket.on('error', () => undefined)));
      server.once('error', reject).listen(port, address, () => resolve(server));
    });
  const first = await listen('127.0.0.51', 0);
  servers.push(first);
  const { port } = first.address() as AddressInfo;
  const addresses = Array.from({ length: count }, (_, index) => `127.0.0.${51 + index}`);
  for (const address of addresses.slice(1)) servers.push(await listen(address, port));
  return {
    port,
    addresses,
    connections: () => sockets.length,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    },
  };
}

describe('MxTransport walking hosts that do not answer', () => {
  it('stops starting sessions once the walk has taken SMTP_MESSAGE_TIMEOUT_MS, so a domain listing many dead hosts cannot hold a delivery slot for each', async () => {
    const hosts = await silentHosts(10);
    // Each silent host costs the greeting timeout (100 ms); the walk may take 250 ms (and asks two hosts whatever the
    // time), so about three are asked.
    const transport = new MxTransport(
      { route: async () => ({ kind: 'hosts', ttlSeconds: 60, hosts: hosts.addresses.map((address, index) => ({ name: `mx${index}.tarpit.test`, preference: index, addresses: [address] })) }) },
      { ...SETTINGS, port: hosts.port, timeoutMs: 100, messageTimeoutMs: 250 },
    );
    try {
      const outcomes = await transport.deliver('bounces@acme.test', ['ann@tarpit.test'], Buffer.from('Subject: hi\r\n\r\nhi\r\n'));
      expect(outcomes.get('ann@tarpit.test')).toMatchObject({ kind: 'temporary', hostUnavailable: true });
      // The hosts share this process's event loop: after a pause of it, the walk's last greeting timeout can fire
      // before the server side has taken the connection it timed out, so the count may lag the walk for a moment.
      await eventually(() => hosts.connections() >= 2, 5_000);
      expect(hosts.connections()).toBeLessThanOrEqual(4);
    } finally {
      transport.close();
      await hosts.close();
    }
  });
});
