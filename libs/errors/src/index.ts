export * from './error-code';
export * from './domain-error';
export * from './rpc-error';
export * from './rpc-exception.filter';
export * from './http-error-mapping';
export * from './http-exception.filter';
export * from './database-unavailable';
export * from './message-text';
