import type { EnvName } from '@mailroom/config';
import { ApiClient } from './api-client';
import { AppProcess, PROCESS_READY_TIMEOUT_MS, startAppProcess } from './app-process';
import { eventually } from './eventually';
import { freePort } from './free-port';
import type { Stack } from './stack';

export interface GatewayProcess {
  baseUrl: string;
  /** http://127.0.0.1:<ops port>: /health/live, /health/ready, /metrics. */
  opsUrl: string;
  /** Uses the stack's root key unless a request names another. */
  api: ApiClient;
  process: AppProcess;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

/**
 * A gateway replica run from dist/ as its own OS process on the stack's NATS,
 * as in production: nothing it holds in memory is shared with the test or
 * another replica. Resolves once it answers /health/live.
 */
export async function startGatewayProcess(stack: Stack, env: Partial<Record<EnvName, string>> = {}): Promise<GatewayProcess> {
  const [port, opsPort] = [await freePort(), await freePort()];
  const baseUrl = `http://127.0.0.1:${port}`;
  const opsUrl = `http://127.0.0.1:${opsPort}`;
  const gateway = startAppProcess('gateway', {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    NATS_URL: stack.nats.url,
    HOST: '127.0.0.1',
    PORT: String(port),
    HEALTH_HOST: '127.0.0.1',
    HEALTH_PORT: String(opsPort),
    RATE_LIMIT_PER_SECOND: '0',
    ...env,
  });
  const live = () => fetch(`${opsUrl}/health/live`).then((response) => response.status === 200, () => false);
  try {
    await eventually(live, PROCESS_READY_TIMEOUT_MS);
  } catch (error) {
    gateway.child.kill('SIGKILL');
    throw new Error(`the gateway process did not come up: ${gateway.stderr()}`, { cause: error });
  }
  const stop = async () => {
    if (gateway.child.exitCode === null && gateway.child.signalCode === null) gateway.child.kill('SIGTERM');
    await gateway.exited;
  };
  return { baseUrl, opsUrl, api: new ApiClient(baseUrl, stack.rootKey), process: gateway, stop };
}
