import { Client } from 'pg';
import type { BenchStack } from './bench-stack';

/**
 * The upkeep Postgres's autovacuum (on by default) does between two phases of
 * a bench: vacuum the rows the earlier phase updated and deleted, and analyze
 * the tables it grew. The Postgres of the machines these benches run on has
 * autovacuum off, and without it a phase measured after 100,000 emails runs
 * on tables no production database would be left with: dead rows a queue
 * claim walks past, and statistics that still describe empty tables. Where
 * autovacuum is on, the tables are left to it. Answers a line for the report.
 */
export async function tableUpkeep(stack: BenchStack): Promise<string> {
  const db = new Client({ connectionString: stack.databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ autovacuum: string }>(`SELECT current_setting('autovacuum') AS autovacuum`);
    if (rows[0].autovacuum === 'on') return 'autovacuum is on: the tables were left to it';
    const startedAt = Date.now();
    await db.query('VACUUM (ANALYZE)');
    return `autovacuum is off on this Postgres: VACUUM (ANALYZE) of the bench database first, as it would have run (${Date.now() - startedAt} ms)`;
  } finally {
    await db.end();
  }
}
