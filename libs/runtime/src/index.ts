export * from './pino-logger';
export * from './nats-options';
export * from './rpc-client';
export * from './service-app';
export * from './config.module';
export * from './run-main';
export * from './health';
export * from './database.module';
