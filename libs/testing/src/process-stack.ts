import type { AppName } from '@mailroom/config';
import { AppProcess, PROCESS_READY_TIMEOUT_MS, startAppProcess } from './app-process';
import { eventually } from './eventually';
import { freePort } from './free-port';

type ServiceApp = Exclude<AppName, 'launcher'>;

/** In the order npm start launches them. */
const APPS: ServiceApp[] = ['keys', 'domains', 'emails', 'webhook-dispatcher', 'gateway'];

export interface ProcessStack {
  /** http://127.0.0.1:<PORT> of the gateway process. */
  baseUrl: string;
  /** http://127.0.0.1:<HEALTH_PORT> of an app; the port stays the same across restarts. */
  opsUrl(app: ServiceApp): string;
  /** Starts the app's process again (after kill) and waits until it is ready. */
  start(app: ServiceApp): Promise<void>;
  /** SIGKILL, as a crash or the OOM killer would: no shutdown hooks run. Resolves once the process is gone. */
  kill(app: ServiceApp): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The five apps as separate OS processes from dist/, each with the same
 * environment as npm start gives them (plus its own operations port), against
 * the database and NATS server that `env` names. Resolves once every app is
 * ready and the gateway's /health answers 200.
 */
export async function startProcessStack(env: Record<string, string>): Promise<ProcessStack> {
  const port = await freePort();
  const opsPorts = new Map<ServiceApp, number>();
  for (const app of APPS) opsPorts.set(app, await freePort());
  const running = new Map<ServiceApp, AppProcess>();
  const baseUrl = `http://127.0.0.1:${port}`;
  const opsUrl = (app: ServiceApp) => `http://127.0.0.1:${opsPorts.get(app)}`;
  const answers = (url: string) => fetch(url).then((response) => response.status === 200, () => false);

  const start = async (app: ServiceApp) => {
    const child = startAppProcess(app, Object.assign({}, env, { HOST: '127.0.0.1', PORT: String(port), HEALTH_HOST: '127.0.0.1', HEALTH_PORT: String(opsPorts.get(app)) }));
    running.set(app, child);
    let exit: unknown = 'still running';
    void child.exited.then((status) => (exit = status));
    // Five Node processes booting at once on a loaded 2-core machine have taken over 30 s.
    await eventually(() => answers(`${opsUrl(app)}/health/ready`), PROCESS_READY_TIMEOUT_MS, 100).catch((error: Error) => {
      throw new Error(`${app} did not become ready: ${error.message}; the process (${JSON.stringify(exit)}) wrote: ${child.stderr()}`);
    });
  };
  const kill = async (app: ServiceApp) => {
    const child = running.get(app);
    running.delete(app);
    if (!child || child.child.exitCode !== null || child.child.signalCode !== null) return;
    child.child.kill('SIGKILL');
    await child.exited;
  };
  const stop = async () => {
    for (const app of [...running.keys()].reverse()) await kill(app);
  };

  try {
    // The apps wait for nothing of each other to become ready, and a boot spends much of its time waiting on Postgres and NATS.
    await Promise.all(APPS.map(start));
    await eventually(() => answers(`${baseUrl}/health`), 30000, 100);
  } catch (error) {
    await stop();
    throw error;
  }
  return { baseUrl, opsUrl, start, kill, stop };
}
