export * from './api-client';
export * from './eventually';
export * from './private-nats';
export * from './stack';
export * from './test-postgres';
