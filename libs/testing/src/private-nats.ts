import { ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Who the server lets in: one user with a password (--user/--pass), a token
 * (--auth), or what a configuration file says (an `authorization` block,
 * whose users the apps name in their own NATS_URL), or anyone who speaks
 * TLS as nats-server's TLS flags (--tls, --tlscert, --tlsverify …) ask;
 * anyone when absent.
 */
export type PrivateNatsAccess = { user: string; pass: string } | { token: string } | { config: string } | { tls: string[] };

export interface PrivateNats {
  /** The URL the apps are given: with the access's credentials in it, when the server requires some. */
  url: string;
  /** The same server without credentials, which a server that requires them refuses. */
  bareUrl: string;
  port: number;
  /** Stops the server; its JetStream store stays, so `restart()` keeps streams and messages. */
  stop(): Promise<void>;
  restart(): Promise<void>;
  destroy(): Promise<void>;
}

/** Starts a nats-server with JetStream on loopback; resolves with its client port once it is ready. */
export function launchNatsServer(storeDir: string, port: number, extraArgs: string[] = []): Promise<{ child: ChildProcess; port: number }> {
  return spawnNatsServer(['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir, ...extraArgs]);
}

/**
 * A nats-server on a random loopback port as Debian's package runs it as a
 * service (on 127.0.0.1:4222): without JetStream, which every app needs.
 */
export async function startNatsWithoutJetStream(): Promise<{ url: string; stop(): Promise<void> }> {
  const { child, port } = await spawnNatsServer(['-a', '127.0.0.1', '-p', '-1']);
  return { url: `nats://127.0.0.1:${port}`, stop: () => stopNatsServer(child) };
}

function spawnNatsServer(args: string[]): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn('nats-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Listening for client connections on [^\s]+:(\d+)/.exec(output);
      if (match && /Server is ready/.test(output)) {
        child.stderr!.off('data', onData);
        child.stdout!.off('data', onData);
        resolve({ child, port: Number(match[1]) });
      }
    };
    child.stderr!.on('data', onData);
    child.stdout!.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`nats-server exited (${code}): ${output}`)));
  });
}

export function stopNatsServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** A nats-server with JetStream of the suite's own, on a random loopback port (about 50 ms to start). */
export async function startPrivateNats(access?: PrivateNatsAccess): Promise<PrivateNats> {
  const storeDir = await mkdtemp(join(tmpdir(), 'mailroom-nats-'));
  const args = await accessArgs(access, storeDir);
  let current = await launchNatsServer(storeDir, -1, args);
  const port = current.port;
  const bareUrl = `nats://127.0.0.1:${port}`;
  return {
    url: access && ('user' in access || 'token' in access) ? `nats://${credentialsOf(access)}@127.0.0.1:${port}` : bareUrl,
    bareUrl,
    port,
    stop: () => stopNatsServer(current.child),
    restart: async () => {
      await stopNatsServer(current.child);
      current = await launchNatsServer(storeDir, port, args);
    },
    destroy: async () => {
      await stopNatsServer(current.child);
      await rm(storeDir, { recursive: true, force: true });
    },
  };
}

async function accessArgs(access: PrivateNatsAccess | undefined, storeDir: string): Promise<string[]> {
  if (!access) return [];
  if ('tls' in access) return access.tls;
  if ('config' in access) {
    // Beside the store, so destroy() removes it; the command line's -p, -sd and -js override the file.
    const file = join(storeDir, 'nats-server.conf');
    await writeFile(file, access.config);
    return ['-c', file];
  }
  return 'token' in access ? ['--auth', access.token] : ['--user', access.user, '--pass', access.pass];
}

function credentialsOf(access: { user: string; pass: string } | { token: string }): string {
  return 'token' in access ? encodeURIComponent(access.token) : `${encodeURIComponent(access.user)}:${encodeURIComponent(access.pass)}`;
}
