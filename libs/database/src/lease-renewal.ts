/**
 * The statement that extends the leases a worker holds on rows of a queue
 * table (`id`, `lease_owner`, `lease_expires_at`), as the renewal timer runs
 * it beside the worker's own attempt recorder: $1 the owner, $2 the ids,
 * $3 the lease in milliseconds; it answers the ids renewed.
 *
 * Rows are locked in id order, and a row another transaction holds is
 * skipped, never waited for: it is almost always the recorder, which is about
 * to release that lease anyway. A plain UPDATE locked rows in whatever order
 * its plan read them, and against a recorder holding some of them that was a
 * deadlock: Postgres broke it after a second by failing the recorder's whole
 * batch, which every delivery in flight then waited for. Leases are renewed
 * at a third of their length, so a skipped renewal is made up by the next.
 */
export function renewOwnLeasesSql(table: string): string {
  return `WITH held AS (
            SELECT id FROM ${table} WHERE id = ANY($2::text[]) AND lease_owner = $1
             ORDER BY id FOR UPDATE SKIP LOCKED),
          renewed AS (
            UPDATE ${table} t SET lease_expires_at = now() + make_interval(secs => $3::double precision / 1000)
              FROM held WHERE t.id = held.id
            RETURNING t.id)
          SELECT id FROM renewed`;
}
