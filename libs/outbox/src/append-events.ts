import type { EventEnvelope, Mode } from '@mailroom/contracts';
import { EntityManager } from 'typeorm';
import { insertRows, preparedStatements, TableRows, ulid } from '@mailroom/database';

export interface NewEvent {
  type: string;
  mode: Mode;
  data: object;
}

/**
 * The outbox rows for these events, in the columns the relay reads. Callers
 * that insert other rows too can write them in the same statement (see
 * insertAll); everyone else uses appendEvents.
 */
export function outboxRows(schema: string, events: readonly NewEvent[], createdAt: Date = new Date()): TableRows & { envelopes: EventEnvelope[] } {
  const envelopes = events.map((event) => ({
    id: `evt_${ulid()}`,
    type: event.type,
    createdAt: createdAt.toISOString(),
    mode: event.mode,
    data: event.data as Record<string, unknown>,
  }));
  return {
    table: `${schema}.outbox`,
    columns: ['id', 'type', 'mode', 'data', 'created_at'],
    types: ['text', 'text', 'text', 'jsonb', 'timestamptz'],
    rows: envelopes.map((envelope) => [envelope.id, envelope.type, envelope.mode, envelope.data, createdAt]),
    envelopes,
  };
}

/**
 * Writes events into the service's outbox with the caller's transaction
 * (the manager), so a status change and its event commit or fail together.
 * The relay publishes them afterwards.
 */
export async function appendEvents(manager: EntityManager, schema: string, events: NewEvent[]): Promise<EventEnvelope[]> {
  if (!events.length) return [];
  const { envelopes, ...rows } = outboxRows(schema, events);
  await insertRows(preparedStatements(manager), rows);
  return envelopes;
}
