import { ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { createBenchDatabase, startPrivateNats } from './bench-stack';
import { stopChild } from '../local/local-nats';
import { pacedLoad } from './paced-load';
import { measured } from './stack-cpu';
import { BENCH_EMAIL } from './send.bench';

const RATE = 2000;
const BODY = JSON.stringify(BENCH_EMAIL);

/**
 * What this machine gives the send target's shape with nothing of Mailroom
 * in it: an HTTP server process that asks a service process over NATS, which
 * answers, or first inserts the body in Postgres, at 2,000 evenly paced
 * requests/s. The same load generator, the same kind of nats-server and
 * Postgres as the send bench. Its p99 and CPU per request are the floor under
 * the send bench's: what is left for authentication, validation, the
 * email's rows, its events and its delivery.
 */
export async function floorBench(): Promise<void> {
  const database = await createBenchDatabase();
  const nats = await startPrivateNats();
  const port = 15000 + Math.floor(Math.random() * 1000);
  const env = { ...process.env, FLOOR_NATS_URL: nats.url, FLOOR_DATABASE_URL: database.url, FLOOR_PORT: String(port) };
  const parts: ChildProcess[] = [];
  const work = process.env.BENCH_FLOOR_WORK_US ? ` (+${process.env.BENCH_FLOOR_WORK_US} µs of work in each part)` : '';
  try {
    for (const part of ['service', 'http']) {
      const child = fork(join(__dirname, 'floor-part.js'), [`--bench-part=${part}`], { env, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
      parts.push(child);
      await new Promise<void>((resolve, reject) => {
        child.once('message', () => resolve());
        child.once('exit', (code) => reject(new Error(`the floor bench's ${part} process exited (${code})`)));
      });
    }
    for (const [path, chain] of [
      ['/echo', 'HTTP → NATS → service'],
      ['/insert', 'HTTP → NATS → service → one INSERT, its own commit'],
    ]) {
      const options = { url: `http://127.0.0.1:${port}${path}`, method: 'POST' as const, headers: { 'content-type': 'application/json' }, body: BODY };
      await pacedLoad({ ...options, rate: RATE, durationSeconds: 5 });
      const result = await measured({ databaseUrl: database.url }, 'request', 1, () => pacedLoad({ ...options, rate: RATE, durationSeconds: 20 }));
      const failed = result.errors + result.non2xx;
      process.stdout.write(
        `floor ${chain}${work}, ${RATE} req/s evenly paced: ${result.requestsPerSecond} req/s, p50 ${result.p50} ms, p95 ${result.p95} ms, p99 ${result.p99} ms, ${failed} failed\n${result.cpu}\n`,
      );
    }
  } finally {
    await Promise.all(parts.map((child) => stopChild(child)));
    await nats.stop();
    await database.drop();
  }
}
