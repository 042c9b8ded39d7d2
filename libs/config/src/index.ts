export * from './env-schema';
export * from './load-config';
export * from './parsers';
