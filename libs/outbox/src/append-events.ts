import type { EventEnvelope, Mode } from '@mailroom/contracts';
import { EntityManager } from 'typeorm';
import { ulid } from 'ulid';

export interface NewEvent {
  type: string;
  mode: Mode;
  data: object;
}

/**
 * Writes events into the service's outbox with the caller's transaction
 * (the manager), so a status change and its event commit or fail together.
 * The relay publishes them afterwards.
 */
export async function appendEvents(manager: EntityManager, schema: string, events: NewEvent[]): Promise<EventEnvelope[]> {
  if (!events.length) return [];
  const createdAt = new Date();
  const envelopes = events.map((event) => ({
    id: `evt_${ulid()}`,
    type: event.type,
    createdAt: createdAt.toISOString(),
    mode: event.mode,
    data: event.data as Record<string, unknown>,
  }));
  const values: unknown[] = [];
  const rows = envelopes.map((envelope, index) => {
    values.push(envelope.id, envelope.type, envelope.mode, JSON.stringify(envelope.data), createdAt);
    const base = index * 5;
    return `($${base + 1}, $${base + 2}, $${base + 3}, $${base + 4}::jsonb, $${base + 5})`;
  });
  await manager.query(`INSERT INTO ${schema}.outbox (id, type, mode, data, created_at) VALUES ${rows.join(', ')}`, values);
  return envelopes;
}
