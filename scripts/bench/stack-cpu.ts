import { readdirSync, readFileSync } from 'node:fs';
import { Client } from 'pg';
import type { BenchStack } from './bench-stack';

/** CPU seconds used so far by each part of the stack, keyed by part name. */
export type CpuSample = Map<string, number>;

/** This process: the load generator, and the SMTP sink where a bench runs one. */
const BENCH_PART = 'bench';

/**
 * CPU seconds used so far by each part of the stack: the app processes and
 * nats-server (this process's children), the Postgres backends of the bench
 * database, and this process. On a shared machine the throughput says how
 * much CPU the stack got; CPU per unit of work says what the work costs, so
 * what two idle cores could carry, and it moves far less between machines.
 */
export async function stackCpu(stack: BenchStack): Promise<CpuSample> {
  const db = new Client({ connectionString: stack.databaseUrl });
  await db.connect();
  const { rows } = await db.query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`);
  await db.end();
  const backends = new Set(rows.map((row: { pid: number }) => String(row.pid)));
  const cpu: CpuSample = new Map();
  const add = (part: string, seconds: number) => cpu.set(part, (cpu.get(part) ?? 0) + seconds);
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      // Fields after the parenthesised command: state is field 3, ppid 4, utime 14, stime 15 (in clock ticks, 100 per second).
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
      const seconds = (Number(fields[11]) + Number(fields[12])) / 100;
      if (backends.has(pid)) add('postgres', seconds);
      else if (fields[1] === String(process.pid)) add(/apps\/([^/]+)\//.exec(readFileSync(`/proc/${pid}/cmdline`, 'utf8'))?.[1] ?? 'nats', seconds);
    } catch {
      // The process ended between listing and reading.
    }
  }
  const own = process.cpuUsage();
  add(BENCH_PART, (own.user + own.system) / 1e6);
  return cpu;
}

/**
 * One report line: CPU milliseconds per unit (message, request, email) for
 * each part between two samples, and what the stack without the bench's own
 * process could carry on two idle cores at that cost.
 */
export function cpuPerUnit(start: CpuSample, end: CpuSample, units: number, unit: string): string {
  const parts = [...end].map(([part, seconds]) => [part, ((seconds - (start.get(part) ?? 0)) * 1000) / Math.max(1, units)] as const);
  const stackMs = parts.filter(([part]) => part !== BENCH_PART).reduce((sum, [, ms]) => sum + ms, 0);
  return (
    `  CPU per ${unit}: ${parts.map(([part, ms]) => `${part} ${ms.toFixed(2)} ms`).join(', ')}; ` +
    `stack ${stackMs.toFixed(2)} ms → at most ${Math.round(2000 / stackMs)} ${unit}s/s on 2 idle cores`
  );
}
