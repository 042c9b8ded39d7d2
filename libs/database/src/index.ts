export * from './service-data-source';
export * from './run-migrations';
export * from './keyset-page';
