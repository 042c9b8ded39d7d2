export * from './api-key-format';
export * from './ip-restriction';
export * from './permissions';
export * from './auth.tokens';
export * from './decorators';
export * from './authenticate';
export * from './api-key.guard';
export * from './secret-box';
