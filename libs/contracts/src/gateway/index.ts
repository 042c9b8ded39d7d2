export * from './auth-failure';
export * from './subjects';
