export * from './api-client';
export * from './eventually';
export * from './extra-gateway';
export * from './private-nats';
export * from './stack';
export * from './test-dns';
export * from './test-postgres';
export * from './test-smtp';
