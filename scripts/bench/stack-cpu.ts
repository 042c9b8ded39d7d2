import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { Client } from 'pg';
import { benchPartName, type BenchStack } from './bench-stack';
import type { LoadResult } from './load';
import { startStatementTimes } from './statement-times';

/** CPU seconds used so far by each part of the stack, keyed by part name, and by the whole machine, at a moment. */
export interface CpuSample {
  parts: Map<string, number>;
  /** Context switches so far by each part, over all its threads: what a part costs follows how often it is woken more than how much it has to do. */
  switches: Map<string, number>;
  /** Busy CPU seconds of the whole machine: every process and the kernel. */
  machine: number;
  /** When the sample was taken (ms, monotonic). */
  at: number;
}

/** This process: the load generator, and the SMTP sink where a bench runs one. */
const BENCH_PART = 'bench';

/**
 * CPU seconds used so far by each part of the stack: the app processes and
 * nats-server (this process's children), every Postgres process (the
 * backends, and the WAL writer, checkpointer and autovacuum workers that the
 * load keeps busy), and this process; plus the whole machine's busy time
 * from /proc/stat. On a shared machine the throughput says how much CPU the
 * stack got; CPU per unit of work says what the work costs, so what two idle
 * cores could carry, and it moves far less between machines.
 */
export async function stackCpu(stack: Pick<BenchStack, 'databaseUrl'>): Promise<CpuSample> {
  const db = new Client({ connectionString: stack.databaseUrl });
  await db.connect();
  // Postgres's own processes share its binary name; the backend answering this query is left out.
  const { rows } = await db.query(`SELECT pg_backend_pid() AS pid`);
  await db.end();
  const sampler = String(rows[0].pid);
  const parts = new Map<string, number>();
  const switches = new Map<string, number>();
  const add = (part: string, seconds: number, pid: string) => {
    parts.set(part, (parts.get(part) ?? 0) + seconds);
    switches.set(part, (switches.get(part) ?? 0) + contextSwitches(pid));
  };
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      // Fields after the parenthesised command: state is field 3, ppid 4, utime 14, stime 15 (in clock ticks, 100 per second).
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
      const seconds = (Number(fields[11]) + Number(fields[12])) / 100;
      if (pid !== sampler && readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') add('postgres', seconds, pid);
      else if (fields[1] === String(process.pid)) add(partOf(pid), seconds, pid);
    } catch {
      // The process ended between listing and reading.
    }
  }
  const own = process.cpuUsage();
  add(BENCH_PART, (own.user + own.system) / 1e6, String(process.pid));
  return { parts, switches, machine: machineBusySeconds(), at: performance.now() };
}

/** A child of the bench: an app process (benchPartName), a process started with --bench-part=<name>, or else nats-server. */
function partOf(pid: string): string {
  const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  const app = /apps\/([^/]+)\//.exec(commandLine)?.[1];
  if (app) return benchPartName(app, environmentOf(pid));
  return /--bench-part=([\w-]+)/.exec(commandLine)?.[1] ?? 'nats';
}

/** A process's environment as it was started (NAME=value entries, NUL-separated). */
function environmentOf(pid: string): Record<string, string> {
  const entries = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
  return Object.fromEntries(entries.map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]));
}

/** Voluntary and involuntary context switches of every thread of a process so far. */
function contextSwitches(pid: string): number {
  let total = 0;
  for (const thread of readdirSync(`/proc/${pid}/task`)) {
    const status = readFileSync(`/proc/${pid}/task/${thread}/status`, 'utf8');
    for (const match of status.matchAll(/^(?:non)?voluntary_ctxt_switches:\s+(\d+)$/gm)) total += Number(match[1]);
  }
  return total;
}

/** Busy CPU seconds of the whole machine since boot: every state of the `cpu` line but idle and iowait (in clock ticks). */
function machineBusySeconds(): number {
  const ticks = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = ticks;
  return (user + nice + system + irq + softirq + steal) / 100;
}

/**
 * One report line: CPU milliseconds per unit (message, request, email) for
 * each part between two samples, and what the stack without the bench's own
 * process could carry on two idle cores at that cost. The machine's busy
 * time beyond the parts (the kernel's network work, other daemons) is shown
 * as `unattributed`, with how busy the machine was: a stack that leaves
 * cores idle is waiting on something, not short of CPU.
 */
export function cpuPerUnit(start: CpuSample, end: CpuSample, units: number, unit: string): string {
  const perUnit = (seconds: number) => (seconds * 1000) / Math.max(1, units);
  const parts = perPart(start.parts, end.parts, units).map(([part, seconds]) => [part, seconds * 1000] as const);
  const stackMs = stackTotal(parts);
  const countedMs = parts.reduce((sum, [, ms]) => sum + ms, 0);
  const machineSeconds = end.machine - start.machine;
  const busyPercent = Math.round((100 * machineSeconds * 1000) / ((end.at - start.at) * cpus().length));
  return (
    `  CPU per ${unit}: ${parts.map(([part, ms]) => `${part} ${ms.toFixed(2)} ms`).join(', ')}, ` +
    `unattributed ${Math.max(0, perUnit(machineSeconds) - countedMs).toFixed(2)} ms (machine ${busyPercent} % busy); ` +
    `stack ${stackMs.toFixed(2)} ms → at most ${Math.round(2000 / stackMs)} ${unit}s/s on 2 idle cores\n` +
    `  context switches per ${unit}: ${switchesPerUnit(start, end, units)}`
  );
}

function switchesPerUnit(start: CpuSample, end: CpuSample, units: number): string {
  const parts = perPart(start.switches, end.switches, units);
  const total = stackTotal(parts);
  return `${parts.map(([part, count]) => `${part} ${count.toFixed(1)}`).join(', ')}; stack ${total.toFixed(1)}`;
}

/** What each part added between two samples, per unit of work. */
function perPart(start: Map<string, number>, end: Map<string, number>, units: number): Array<readonly [string, number]> {
  return [...end].map(([part, value]) => [part, (value - (start.get(part) ?? 0)) / Math.max(1, units)] as const);
}

/** The sum over every part but the bench's own process. */
function stackTotal(parts: ReadonlyArray<readonly [string, number]>): number {
  return parts.filter(([part]) => part !== BENCH_PART).reduce((sum, [, value]) => sum + value, 0);
}

/**
 * A load run, followed by what each part of the stack spent per unit of work
 * during it, and, where Postgres loads pg_stat_statements, on which
 * statements (printed after its report line).
 */
export async function measured<Result extends LoadResult>(
  stack: Pick<BenchStack, 'databaseUrl'>,
  unit: string,
  unitsPerRequest: number,
  run: () => Promise<Result>,
): Promise<Result & { cpu: string }> {
  const statements = await startStatementTimes(stack.databaseUrl);
  const before = await stackCpu(stack);
  const result = await run();
  const units = result.total * unitsPerRequest;
  const cpu = cpuPerUnit(before, await stackCpu(stack), units, unit) + (await statements.report(units, unit));
  return Object.assign(result, { cpu });
}
