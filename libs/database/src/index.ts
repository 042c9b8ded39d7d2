export * from './service-data-source';
export * from './run-migrations';
export * from './keyset-page';
export * from './insert-rows';
export * from './entity-rows';
export * from './group-commit';
export * from './transaction-outcome';
export * from './ulid';
