import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection, createServer, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@mailroom/testing';
import { ensureNats, LocalNats } from '../local/local-nats';

const answersOn = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = createConnection({ host, port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

/** What `npm start` does with a loopback NATS_URL written in IPv6: nats://[::1]:4222. */
describe('ensureNats with NATS_URL on the IPv6 loopback', () => {
  let dataDir: string;
  let nats: LocalNats | undefined;
  let other: Server | undefined;
  const said: string[] = [];

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mailroom-nats6-'));
    said.length = 0;
  });
  afterEach(async () => {
    await nats?.stop();
    await new Promise((resolve) => (other ? other.close(resolve) : resolve(undefined)));
    [nats, other] = [undefined, undefined];
    await rm(dataDir, { recursive: true, force: true });
  });

  it('uses the server that answers there rather than start a second one beside it', async () => {
    const port = await freePort();
    other = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => other!.listen(port, '::1', resolve));
    nats = await ensureNats(`nats://[::1]:${port}`, dataDir, (line) => said.push(line));
    expect(said).toEqual([]);
  });

  it('starts nats-server where the URL points, so the apps given it can connect', async () => {
    const port = await freePort();
    nats = await ensureNats(`nats://[::1]:${port}`, dataDir, (line) => said.push(line));
    expect(said).toEqual([expect.stringContaining(`starting nats-server on [::1]:${port}`)]);
    expect(await answersOn('::1', port)).toBe(true);
  });
});

/** NATS_URL=tls://… (or a CA bundle, or a client certificate) with nothing answering on loopback. */
describe('ensureNats for apps that require TLS of their NATS', () => {
  it('refuses to start a nats-server without TLS that every app would then refuse, saying what to do', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'mailroom-nats-tls-'));
    const port = await freePort();
    const started = ensureNats(`tls://127.0.0.1:${port}`, dataDir, () => undefined, true);
    try {
      await expect(started).rejects.toThrow(`Nothing answers at NATS_URL=tls://127.0.0.1:${port}, and the apps require TLS of it`);
    } finally {
      await started.then((nats) => nats.stop(), () => undefined);
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
