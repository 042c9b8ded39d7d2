import { DynamicModule, INestApplicationContext, INestMicroservice, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DomainErrorRpcFilter } from '@mailroom/errors';
import type { MailroomConfig } from '@mailroom/config';
import { DataSource } from 'typeorm';
import { collectProcessMetrics } from './metrics';
import { drainingNatsServer } from './nats-options';
import { CheckState, startOpsServer } from './ops-server';
import { awaitAppliedMigrations } from './pending-migrations';
import { PinoLogger } from './pino-logger';
import { readinessChecks } from './readiness';

export interface ServiceAppOptions {
  /**
   * False for a process that only does background work (EMAILS_ROLE=worker):
   * it starts its providers but subscribes to no request subject, so requests
   * only ever reach the processes that answer them.
   */
  answersRequests?: boolean;
}

/**
 * Boots one NATS microservice. The module is built from the validated config
 * rather than process.env, so the e2e harness can boot the same app in-process.
 */
export async function createServiceApp(
  name: string,
  module: Type<unknown> | DynamicModule,
  config: MailroomConfig,
  { answersRequests = true }: ServiceAppOptions = {},
): Promise<INestMicroservice> {
  const app = await NestFactory.createMicroservice(
    module,
    Object.assign(drainingNatsServer(config, name), { logger: new PinoLogger(name, config.LOG_LEVEL) }),
  );
  app.useGlobalFilters(new DomainErrorRpcFilter());
  const dataSource = app.get(DataSource, { strict: false });
  // Live from here, ready only once started: the ops port answers while the app waits for its migrations.
  let starting: Record<string, CheckState> | null = { started: 'pending' };
  await attachOpsServer(app, name, config, dataSource, () => starting ?? {});
  try {
    if (dataSource) {
      starting = { migrations: 'pending', started: 'pending' };
      const logger = new PinoLogger(name, config.LOG_LEVEL);
      await awaitAppliedMigrations(dataSource, (line) => logger.warn(line));
      starting = { started: 'pending' };
    }
    // No enableShutdownHooks(): runMain closes the app on SIGTERM (see closeOnSignals), through close() and its ops server.
    if (answersRequests) await app.listen();
    else await app.init();
  } catch (error) {
    // The ops port and the connections opened so far would keep the process (or a test run) alive.
    await app.close().catch(() => undefined);
    throw error;
  }
  starting = null;
  return app;
}

const opsPorts = new WeakMap<object, number>();

/** The ops port an app serves health and metrics on (HEALTH_PORT, or the one picked for 0); tests read it. */
export function opsPortOf(app: object): number | undefined {
  return opsPorts.get(app);
}

/**
 * Serves health and metrics on HEALTH_PORT, and closes that server with the
 * app (Nest has no hook for servers it does not own, so close() is wrapped).
 */
export async function attachOpsServer(
  app: INestApplicationContext,
  name: string,
  config: MailroomConfig,
  dataSource?: DataSource,
  startingChecks: () => Record<string, CheckState> = () => ({}),
): Promise<number> {
  collectProcessMetrics(name);
  const readiness = await readinessChecks(config, dataSource);
  const ops = await startOpsServer(config.HEALTH_HOST, config.HEALTH_PORT, async () => ({ ...(await readiness.check()), ...startingChecks() }));
  // Nest hands out its apps behind a Proxy whose `set` trap ignores writes, so
  // `app.close = …` would silently do nothing and leave the ops port open; and
  // the Proxy's methods look themselves up at call time, so the original must
  // come from the prototype or the wrapper would call itself forever.
  const originalClose = Reflect.get(Object.getPrototypeOf(app), 'close') as () => Promise<void>;
  const close = () => originalClose.call(app);
  Object.defineProperty(app, 'close', {
    configurable: true,
    writable: true,
    value: async () => {
      await ops.close();
      await readiness.close();
      await close();
    },
  });
  opsPorts.set(app, ops.port);
  return ops.port;
}
