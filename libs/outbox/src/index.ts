export * from './outbox-table';
export * from './append-events';
export * from './event-stream';
export * from './outbox-relay';
export * from './outbox-relay.module';
export * from './event-consumer';
export * from './stream-message';
export * from './origin-header';
