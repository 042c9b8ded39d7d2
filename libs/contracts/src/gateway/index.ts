export * from './auth-failure';
export * from './consumption-report';
export * from './subjects';
