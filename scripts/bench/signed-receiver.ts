import { once } from 'node:events';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

export interface ReceiverStats {
  distinct: number;
  duplicates: number;
  signatureFailures: number;
}

/** Drives the receiver thread (signed-receiver-worker): its URL, its counters, and the first arrival of each event id. */
export class SignedReceiver {
  private worker?: Worker;
  private port = 0;

  async start(): Promise<this> {
    this.worker = new Worker(join(__dirname, 'signed-receiver-worker.js'));
    const [message] = (await once(this.worker, 'message')) as [{ port: number }];
    this.port = message.port;
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  setSecret(secret: string): void {
    this.worker!.postMessage({ type: 'secret', secret });
  }

  stats(): Promise<ReceiverStats> {
    return this.ask<ReceiverStats>('stats');
  }

  /** Event id → arrival (ms since epoch) of its first request. */
  async firstArrivals(): Promise<Map<string, number>> {
    return new Map((await this.ask<{ arrivals: Array<[string, number]> }>('arrivals')).arrivals);
  }

  /** Resolves once `count` distinct events have arrived, or after `timeoutMs` (the report then shows what is missing). */
  async waitForDistinct(count: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while ((await this.stats()).distinct < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  async stop(): Promise<void> {
    if (!this.worker) return;
    const exited = once(this.worker, 'exit');
    this.worker.postMessage({ type: 'stop' });
    await exited;
  }

  private async ask<T>(type: string): Promise<T> {
    const reply = once(this.worker!, 'message') as Promise<[T]>;
    this.worker!.postMessage({ type });
    return (await reply)[0];
  }
}
