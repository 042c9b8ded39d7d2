export * from './env-schema';
export * from './load-config';
export * from './parsers';
export * from './durations';
export * from './network-parsers';
export * from './webhook-parsers';
export * from './variable-rules';
