import { appendEvents, outboxTableMigration } from '@mailroom/outbox';
import type { EventEnvelope } from '@mailroom/contracts';
import { DataSource } from 'typeorm';

/** A schema holding an outbox table, as a service's migration makes it. */
export async function createOutboxSchema(dataSource: DataSource, schema: string): Promise<void> {
  await dataSource.query(`CREATE SCHEMA ${schema}`);
  for (const statement of outboxTableMigration(schema).up) await dataSource.query(statement);
}

/** `count` live events of `type` committed to the outbox in one transaction, each with `data(index)`. */
export function appendTestEvents(
  dataSource: DataSource,
  schema: string,
  count: number,
  { type = 'email.sent', data = (index: number): object => ({ n: index }) }: { type?: string; data?: (index: number) => object } = {},
): Promise<EventEnvelope[]> {
  return dataSource.transaction((manager) => appendEvents(manager, schema, Array.from({ length: count }, (_, index) => ({ type, mode: 'live' as const, data: data(index) }))));
}
