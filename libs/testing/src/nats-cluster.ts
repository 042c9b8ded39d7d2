import { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';
import { launchNatsServer, stopNatsServer } from './private-nats';

export interface NatsCluster {
  /** Every server's client URL, as a client lists them to fail over. */
  urls: string[];
  /** Stops one server (its store stays), as a lost node would. */
  stopServer(index: number): Promise<void>;
  destroy(): Promise<void>;
}

/**
 * A JetStream cluster of `size` nats-servers on loopback, routed to each
 * other, each with its own store. Its meta leader is elected a moment after
 * the servers are ready: poll the first JetStream call.
 */
export async function startNatsCluster(size = 3): Promise<NatsCluster> {
  const clusterPorts = await Promise.all(Array.from({ length: size }, () => freePort()));
  const routes = clusterPorts.map((port) => `nats://127.0.0.1:${port}`).join(',');
  const storeDirs: string[] = [];
  const servers: { child: ChildProcess; port: number }[] = [];
  try {
    for (const [index, clusterPort] of clusterPorts.entries()) {
      const storeDir = await mkdtemp(join(tmpdir(), `mailroom-nats-cluster-${index}-`));
      storeDirs.push(storeDir);
      const args = ['--server_name', `mr-${index}`, '--cluster_name', 'mailroom-test', '--cluster', `nats://127.0.0.1:${clusterPort}`, '--routes', routes];
      servers.push(await launchNatsServer(storeDir, -1, args));
    }
  } catch (error) {
    await Promise.all(servers.map((server) => stopNatsServer(server.child)));
    await Promise.all(storeDirs.map((dir) => rm(dir, { recursive: true, force: true })));
    throw error;
  }
  return {
    urls: servers.map((server) => `nats://127.0.0.1:${server.port}`),
    stopServer: (index) => stopNatsServer(servers[index].child),
    destroy: async () => {
      await Promise.all(servers.map((server) => stopNatsServer(server.child)));
      await Promise.all(storeDirs.map((dir) => rm(dir, { recursive: true, force: true })));
    },
  };
}
