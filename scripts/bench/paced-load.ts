import * as net from 'node:net';
import { performance } from 'node:perf_hooks';
import type { LoadResult } from './load';

export interface PacedLoadOptions {
  url: string;
  method: 'POST' | 'GET';
  headers: Record<string, string>;
  body?: string;
  /** Requests per second, spread evenly over every second. */
  rate: number;
  durationSeconds: number;
  /** Keep-alive connections; a request due while all are busy waits, and its wait counts in its latency. */
  connections?: number;
}

const TICK_MS = 1;
const DRAIN_TIMEOUT_MS = 10_000;

/**
 * An open-loop load generator at an even rate, as wrk2 measures: request i
 * is due at start + i / rate, whatever the server is doing, and its latency
 * runs from that moment (so a slow answer cannot hide the requests that
 * should have followed it: no coordinated omission). autocannon's
 * `overallRate` instead lets each connection spend its per-second budget as
 * fast as the server answers and then wait for the next second, which offers
 * the whole second's requests at its top. Requests go out on raw keep-alive
 * sockets, written once as bytes, so the generator costs little CPU.
 */
export async function pacedLoad(options: PacedLoadOptions): Promise<PacedLoadResult> {
  const url = new URL(options.url);
  const body = Buffer.from(options.body ?? '');
  const head = [`${options.method} ${url.pathname}${url.search} HTTP/1.1`, `host: ${url.host}`, `content-length: ${body.length}`, ...Object.entries(options.headers).map(([name, value]) => `${name}: ${value}`)];
  const request = Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`), body]);

  const total = Math.round(options.rate * options.durationSeconds);
  const latencies = new Float64Array(total);
  const dueAts = new Float64Array(total);
  const statusCodes: Record<string, number> = {};
  let completed = 0;
  let errors = 0;
  const waiting: number[] = [];
  const idle: PacedConnection[] = [];
  let onDrained: (() => void) | undefined;

  const finish = (dueAt: number, status: number | null) => {
    if (status === null) {
      errors += 1;
    } else {
      statusCodes[status] = (statusCodes[status] ?? 0) + 1;
      dueAts[completed] = dueAt;
      latencies[completed++] = performance.now() - dueAt;
    }
    if (completed + errors >= total) onDrained?.();
  };
  const connections = await Promise.all(
    Array.from({ length: options.connections ?? 64 }, () => PacedConnection.open(url, request, finish, (connection) => {
      const next = waiting.shift();
      if (next === undefined) idle.push(connection);
      else connection.send(next);
    })),
  );
  idle.push(...connections);

  const startedAt = performance.now();
  let issued = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - startedAt) * options.rate) / 1000));
      for (; issued < due; issued++) {
        const dueAt = startedAt + (issued * 1000) / options.rate;
        const connection = idle.pop();
        if (connection) connection.send(dueAt);
        else waiting.push(dueAt);
      }
      if (issued < total) setTimeout(tick, TICK_MS);
      else resolve();
    };
    tick();
  });
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, DRAIN_TIMEOUT_MS);
    onDrained = () => {
      clearTimeout(timer);
      resolve();
    };
    if (completed + errors >= total) onDrained();
  });
  const elapsedSeconds = (performance.now() - startedAt) / 1000;
  for (const connection of connections) connection.close();

  const sorted = latencies.slice(0, completed).sort();
  const percentile = (p: number) => percentileOf(sorted, p);
  const ok = Object.entries(statusCodes).reduce((sum, [code, count]) => sum + (code.startsWith('2') ? count : 0), 0);
  return {
    requestsPerSecond: Math.round(completed / Math.max(options.durationSeconds, elapsedSeconds)),
    p50: percentile(50),
    p95: percentile(95),
    p99: percentile(99),
    non2xx: completed - ok,
    // A connection lost with its request, or a request never answered before the drain timeout.
    errors: total - completed,
    total: completed,
    statusCodes,
    p99PerSecond: p99PerWindow(dueAts.subarray(0, completed).map((dueAt) => dueAt - startedAt), latencies.subarray(0, completed)),
  };
}

/** The p-th percentile of sorted latencies, rounded to a millisecond. */
function percentileOf(sorted: Float64Array, p: number): number {
  return sorted.length ? Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]) : 0;
}

const WINDOW_MS = 1000;

/**
 * p99 of the requests due in each second: a steady tail and a stall of a
 * few hundred milliseconds give the same overall p99 but call for
 * different remedies.
 */
function p99PerWindow(dueOffsets: Float64Array, latencies: Float64Array): number[] {
  const buckets: number[][] = [];
  dueOffsets.forEach((offset, index) => (buckets[Math.floor(offset / WINDOW_MS)] ??= []).push(latencies[index]));
  return Array.from(buckets, (bucket = []) => percentileOf(Float64Array.from(bucket).sort(), 99));
}

export interface PacedLoadResult extends LoadResult {
  /** p99 (ms) of each second of the run, by when each request was due. */
  p99PerSecond: number[];
}

/** One keep-alive connection with one request at a time; reads just enough of each response to find its end. */
class PacedConnection {
  private buffered: Buffer = Buffer.alloc(0);
  private dueAt: number | undefined;

  private constructor(
    private readonly socket: net.Socket,
    private readonly request: Buffer,
    private readonly finish: (dueAt: number, status: number | null) => void,
    private readonly free: (connection: PacedConnection) => void,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.read(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (this.dueAt !== undefined) this.finish(this.dueAt, null);
      this.dueAt = undefined;
    });
  }

  static open(url: URL, request: Buffer, finish: (dueAt: number, status: number | null) => void, free: (connection: PacedConnection) => void): Promise<PacedConnection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(url.port || 80), url.hostname, () => resolve(new PacedConnection(socket, request, finish, free)));
      socket.once('error', reject);
    });
  }

  send(dueAt: number): void {
    this.dueAt = dueAt;
    this.socket.write(this.request);
  }

  close(): void {
    this.socket.destroy();
  }

  private read(chunk: Buffer): void {
    this.buffered = this.buffered.length ? Buffer.concat([this.buffered, chunk]) : chunk;
    const headEnd = this.buffered.indexOf('\r\n\r\n');
    if (headEnd < 0 || this.dueAt === undefined) return;
    const head = this.buffered.subarray(0, headEnd).toString('latin1');
    const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
    if (this.buffered.length < headEnd + 4 + length) return;
    this.buffered = this.buffered.subarray(headEnd + 4 + length);
    const dueAt = this.dueAt;
    this.dueAt = undefined;
    this.finish(dueAt, Number(head.slice(9, 12)));
    this.free(this);
  }
}
