export * from './email.entity';
export * from './recipient.entity';
export * from './suppression.entity';
export * from './idempotency-key.entity';
