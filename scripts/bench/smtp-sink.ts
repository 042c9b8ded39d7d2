import { once } from 'node:events';
import { AddressInfo } from 'node:net';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { SMTPServer } from 'smtp-server';

export interface SinkStats {
  /** Messages answered 250. */
  received: number;
  /** Distinct Message-IDs among them. */
  distinct: number;
  duplicates: number;
  /** Messages without a DKIM-Signature header field. */
  unsigned: number;
}

/** How many whole messages the sink keeps for the bench to verify their signatures. */
const SAMPLE_SIZE = 20;

/**
 * The benchmark's relay: an smtp-server on 127.0.0.1 that accepts everything,
 * in its own thread so that the load generator never delays its replies. It
 * records when each Message-ID first arrived, counts messages without a
 * DKIM-Signature, and keeps a few whole messages so that the bench can verify
 * their signatures. No STARTTLS and no AUTH: over loopback they would only
 * measure the sink's own TLS cost, not Mailroom's.
 */
export class SmtpSink {
  private worker?: Worker;
  private asking: Promise<unknown> = Promise.resolve();
  port = 0;

  async start(): Promise<this> {
    this.worker = new Worker(__filename);
    const [message] = (await once(this.worker, 'message')) as [{ port: number }];
    this.port = message.port;
    return this;
  }

  get relayUrl(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  stats(): Promise<SinkStats> {
    return this.ask<SinkStats>('stats');
  }

  /** The Message-ID's email id (its local part) → arrival in ms since epoch. */
  async firstArrivals(): Promise<Map<string, number>> {
    return new Map((await this.ask<{ arrivals: Array<[string, number]> }>('arrivals')).arrivals);
  }

  async samples(): Promise<Buffer[]> {
    return (await this.ask<{ samples: Uint8Array[] }>('samples')).samples.map((sample) => Buffer.from(sample));
  }

  async stop(): Promise<void> {
    if (!this.worker) return;
    const exited = once(this.worker, 'exit');
    this.worker.postMessage({ type: 'stop' });
    await exited;
  }

  /** One question at a time: replies carry no id, so the next question waits for the previous answer. */
  private ask<T>(type: string): Promise<T> {
    const answer = this.asking.then(async () => {
      const reply = once(this.worker!, 'message') as Promise<[T]>;
      this.worker!.postMessage({ type });
      return (await reply)[0];
    });
    this.asking = answer.catch(() => undefined);
    return answer;
  }
}

function runSinkThread(): void {
  const firstArrival = new Map<string, number>();
  const samples: Buffer[] = [];
  const stats: SinkStats = { received: 0, distinct: 0, duplicates: 0, unsigned: 0 };

  const record = (raw: Buffer) => {
    const arrivedAt = Date.now();
    const headerEnd = raw.indexOf('\r\n\r\n');
    const header = raw.subarray(0, headerEnd < 0 ? raw.length : headerEnd).toString('latin1');
    stats.received += 1;
    if (!/^DKIM-Signature:/im.test(header)) stats.unsigned += 1;
    // Mailroom's Message-ID is <email id@from domain>: the id ties the arrival to the request that sent it.
    const id = /^Message-ID:\s*<([^@>]+)@/im.exec(header)?.[1] ?? `unknown-${stats.received}`;
    if (firstArrival.has(id)) stats.duplicates += 1;
    else firstArrival.set(id, arrivedAt);
    if (samples.length < SAMPLE_SIZE) samples.push(raw);
  };

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    // A reverse DNS lookup per connection would time the resolver, not the sink.
    disableReverseLookup: true,
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        record(Buffer.concat(chunks));
        callback();
      });
    },
  });

  parentPort!.on('message', (message: { type: 'stats' | 'arrivals' | 'samples' | 'stop' }) => {
    if (message.type === 'stats') parentPort!.postMessage({ ...stats, distinct: firstArrival.size });
    else if (message.type === 'arrivals') parentPort!.postMessage({ arrivals: [...firstArrival] });
    else if (message.type === 'samples') parentPort!.postMessage({ samples });
    else server.close(() => parentPort!.close());
  });
  server.listen(0, '127.0.0.1', () => parentPort!.postMessage({ port: (server.server.address() as AddressInfo).port }));
}

if (!isMainThread && parentPort) runSinkThread();
