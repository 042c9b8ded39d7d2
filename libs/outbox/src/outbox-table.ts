/**
 * SQL for a service's outbox table, for use inside that service's migration.
 * `seq` orders publication; `id` is the event id and the JetStream msg id.
 */
export function outboxTableMigration(schema: string): { up: string[]; down: string[] } {
  return {
    up: [
      `CREATE TABLE ${schema}.outbox (
        seq bigserial PRIMARY KEY,
        id text NOT NULL UNIQUE,
        type text NOT NULL,
        mode text NOT NULL,
        data jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        published_at timestamptz
      )`,
      `CREATE INDEX outbox_unpublished_idx ON ${schema}.outbox (seq) WHERE published_at IS NULL`,
    ],
    down: [`DROP TABLE ${schema}.outbox`],
  };
}
