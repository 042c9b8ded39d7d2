import { createServer } from 'node:http';
import { connect } from 'nats';
import { Pool } from 'pg';

/**
 * One part of the floor bench's bare chain, in a process of its own as the
 * apps are: `--bench-part=http` takes HTTP requests and asks the service over
 * NATS; `--bench-part=service` answers, at /insert after one INSERT of the
 * body in its own transaction. Nothing else: no framework, authentication,
 * validation, outbox or background work. Started by floor.bench.ts, which
 * passes the addresses in the environment.
 */
const part = /--bench-part=(\w+)/.exec(process.argv.join(' '))?.[1];
const natsUrl = process.env.FLOOR_NATS_URL!;
const ANSWER = Buffer.from(JSON.stringify({ id: 'floor', object: 'email', status: 'queued' }));
const WORK_MS = Number(process.env.BENCH_FLOOR_WORK_US ?? 0) / 1000;

/**
 * BENCH_FLOOR_WORK_US of CPU spent on each request in each part, standing in
 * for what an app does with it: raising it finds the CPU per request at which
 * this machine still meets a p99.
 */
function work(): void {
  const until = performance.now() + WORK_MS;
  while (performance.now() < until);
}

async function http(): Promise<void> {
  const nats = await connect({ servers: natsUrl });
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      work();
      nats.request(`floor${request.url!.replace(/\//g, '.')}`, Buffer.concat(chunks), { timeout: 5000 }).then(
        // An empty reply is the service's failed INSERT: a failure the report must count, not a 202.
        (reply) =>
          reply.data.length
            ? response.writeHead(202, { 'content-type': 'application/json', 'content-length': reply.data.length }).end(reply.data)
            : response.writeHead(503, { 'content-length': 0 }).end(),
        () => response.writeHead(503, { 'content-length': 0 }).end(),
      );
    });
  });
  // The load generator keeps its connections open between runs.
  server.keepAliveTimeout = 120_000;
  server.listen(Number(process.env.FLOOR_PORT), '127.0.0.1', () => process.send!('ready'));
}

async function service(): Promise<void> {
  const nats = await connect({ servers: natsUrl });
  const pool = new Pool({ connectionString: process.env.FLOOR_DATABASE_URL, max: 4 });
  await pool.query('CREATE TABLE IF NOT EXISTS floor_requests (id bigserial PRIMARY KEY, body jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())');
  nats.subscribe('floor.echo', {
    callback: (_error, message) => {
      work();
      message.respond(ANSWER);
    },
  });
  nats.subscribe('floor.insert', {
    callback: (_error, message) => {
      work();
      pool.query('INSERT INTO floor_requests (body) VALUES ($1)', [Buffer.from(message.data).toString()]).then(
        () => message.respond(ANSWER),
        () => message.respond(Buffer.alloc(0)),
      );
    },
  });
  process.send!('ready');
}

(part === 'http' ? http() : service()).catch((error: Error) => {
  process.stderr.write(`floor ${part}: ${error.message}\n`);
  process.exit(1);
});
