import { spawn, spawnSync, ChildProcess } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { claimDataDir } from './data-dir-lock';
import { portOpen } from './embedded-postgres';
import { hostAndPort, natsUrlWithoutCredentials } from '@mailroom/runtime';
import { LOOPBACK_HOSTS } from '@mailroom/config';

export interface LocalNats {
  url: string;
  stop(): Promise<void>;
}

export const NATS_INSTALL_HINT =
  'Install nats-server (Debian/Ubuntu: `apt-get install nats-server`; macOS: `brew install nats-server`), or set NATS_URL to a running NATS server with JetStream.';

export function natsServerOnPath(): boolean {
  return spawnSync('nats-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * Uses the NATS at NATS_URL when something listens there. Otherwise, for a
 * loopback URL the apps reach without TLS, starts `nats-server` with JetStream
 * and its store under DATA_DIR/nats, and stops it again on shutdown.
 */
export async function ensureNats(natsUrl: string, dataDir: string, log: (line: string) => void, requiresTls = false): Promise<LocalNats> {
  const { hostname, port: rawPort } = new URL(natsUrl);
  const port = Number(rawPort || 4222);
  // WHATWG URL keeps an IPv6 host in brackets, which no socket takes: nats://[::1] was never found answering, and
  // nats-server was started on 127.0.0.1, where the apps given that URL did not look.
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  const listenOn = host === 'localhost' ? '127.0.0.1' : host;
  if (await portOpen(host, port)) return { url: natsUrl, stop: async () => undefined };
  if (!LOOPBACK_HOSTS.includes(hostname)) {
    throw new Error(`Nothing answers at NATS_URL=${natsUrlWithoutCredentials(natsUrl)}. Start NATS there, or point NATS_URL at a running server.`);
  }
  // It starts nats-server as its README says, without TLS, which apps that require TLS (a tls:// URL, a CA bundle or a
  // client certificate) refuse: each exited at boot, and the stack with them, over a TLS error that named no variable.
  if (requiresTls) {
    throw new Error(
      `Nothing answers at NATS_URL=${natsUrlWithoutCredentials(natsUrl)}, and the apps require TLS of it (tls://, NATS_TLS_CA_FILE or NATS_TLS_CERT_FILE), ` +
        'which the nats-server npm start would run there has not. Start your NATS with TLS there, or unset those for a local one.',
    );
  }
  if (!natsServerOnPath()) throw new Error(`Nothing answers at NATS_URL=${natsUrlWithoutCredentials(natsUrl)} and no nats-server binary is on PATH. ${NATS_INSTALL_HINT}`);
  const storeDir = resolve(join(dataDir, 'nats'));
  await mkdir(storeDir, { recursive: true });
  claimDataDir(dataDir);
  log(`starting nats-server on ${hostAndPort(listenOn, port)} with JetStream in ${storeDir}`);
  const child = spawn('nats-server', ['-a', listenOn, '-p', String(port), '-js', '-sd', storeDir], { stdio: 'ignore' });
  await waitFor(() => portOpen(listenOn, port), 10000, 'nats-server did not start listening');
  return { url: natsUrl, stop: () => stopChild(child) };
}

export async function waitFor(check: () => Promise<boolean>, timeoutMs: number, message: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(message);
    await new Promise((resolveTick) => setTimeout(resolveTick, 50));
  }
}

export function stopChild(child: ChildProcess, graceMs = 10000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(killer);
      done();
    });
    child.kill('SIGTERM');
  });
}
