export * from './event-kinds';
export * from './webhook.types';
export * from './subjects';
export * from './verify-signature';
export * from './dto/webhook-create.dto';
export * from './dto/webhook-update.dto';
export * from './dto/webhook-list-query.dto';
export * from './dto/is-webhook-event-list';
