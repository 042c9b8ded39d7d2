import { DynamicModule, INestMicroservice, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DomainErrorRpcFilter } from '@mailroom/errors';
import type { MailroomConfig } from '@mailroom/config';
import { natsServerOptions } from './nats-options';
import { PinoLogger } from './pino-logger';

/**
 * Boots one NATS microservice. The module is built from the validated config
 * rather than process.env, so the e2e harness can boot the same app in-process.
 */
export async function createServiceApp(name: string, module: Type<unknown> | DynamicModule, config: MailroomConfig): Promise<INestMicroservice> {
  const app = await NestFactory.createMicroservice(module, {
    ...natsServerOptions(config.NATS_URL, name),
    logger: new PinoLogger(name, config.LOG_LEVEL),
  });
  app.useGlobalFilters(new DomainErrorRpcFilter());
  app.enableShutdownHooks();
  await app.listen();
  return app;
}
