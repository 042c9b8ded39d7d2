import type { AppName } from '@mailroom/config';

export interface StackProcess {
  /** How the launcher names it in its output. */
  name: string;
  app: Exclude<AppName, 'launcher'>;
  /** What it runs with on top of the stack's environment. */
  env: Record<string, string>;
}

/**
 * The emails service on one host: the requests in one process, the
 * background work (delivery, the outbox relay, the event consumers, purges) in
 * another at a lower CPU priority (EMAILS_ROLE, PROCESS_NICE). On cores the
 * whole stack shares, a burst of deliveries then waits for the request path
 * rather than the request path for it: measured with `npm run bench -- send`
 * at 2,000 evenly paced sends/s, p99 19–27 ms against 28–39 ms for one process
 * that does both (README, Benchmark results).
 */
export const EMAILS_ON_ONE_HOST: readonly StackProcess[] = [
  { name: 'emails', app: 'emails', env: { EMAILS_ROLE: 'api' } },
  { name: 'emails-worker', app: 'emails', env: { EMAILS_ROLE: 'worker', PROCESS_NICE: '10' } },
];

/**
 * Every process `npm start` runs, in the order their operations ports are
 * numbered (HEALTH_PORT, HEALTH_PORT + 1, …): the emails worker comes last,
 * so the other apps keep the ports they had before it was split off.
 */
export const STACK_PROCESSES: readonly StackProcess[] = [
  { name: 'keys', app: 'keys', env: {} },
  { name: 'domains', app: 'domains', env: {} },
  EMAILS_ON_ONE_HOST[0],
  { name: 'webhook-dispatcher', app: 'webhook-dispatcher', env: {} },
  { name: 'gateway', app: 'gateway', env: {} },
  EMAILS_ON_ONE_HOST[1],
];
