import { Client } from 'pg';

/** How many statements the report lists. */
const TOP = 8;

export interface StatementTimes {
  /** Report lines for the statements of this bench's database since start (empty when pg_stat_statements is not loaded). */
  report(units: number, unit: string): Promise<string>;
}

/**
 * Where Postgres spent its statement time during a run, when the server
 * under BENCH_DATABASE_URL loads pg_stat_statements (shared_preload_libraries);
 * without it the report is empty and nothing else changes. CPU per part says
 * how much Postgres worked; this says on which statements, per call and per
 * row, which is how a plan gone wrong shows: the outbox relay's read took
 * 80 ms a call for 200 rows where 1.4 ms was its due.
 */
export async function startStatementTimes(databaseUrl: string): Promise<StatementTimes> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    // Cluster-wide; fails unless the library is loaded, which is the check.
    await db.query('SELECT pg_stat_statements_reset()');
  } catch {
    await db.end();
    return { report: async () => '' };
  }
  return {
    async report(units: number, unit: string): Promise<string> {
      try {
        const { rows } = await db.query(
          `SELECT calls, rows, total_exec_time + total_plan_time AS ms, regexp_replace(query, '\\s+', ' ', 'g') AS query
             FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
            ORDER BY total_exec_time + total_plan_time DESC LIMIT ${TOP}`,
        );
        const lines = rows.map((row: { calls: string; rows: string; ms: number; query: string }) => {
          const calls = Number(row.calls);
          const perUnit = row.ms / Math.max(1, units);
          return `    ${perUnit.toFixed(3)} ms per ${unit}, ${(row.ms / calls).toFixed(2)} ms per call, ${calls} calls, ${(Number(row.rows) / calls).toFixed(1)} rows each: ${row.query.slice(0, 110)}`;
        });
        return `\n  Postgres statement time (wall, top ${TOP}):\n${lines.join('\n')}`;
      } finally {
        await db.end();
      }
    },
  };
}
