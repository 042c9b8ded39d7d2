import type { Worker } from 'node:worker_threads';
import type { BuildReply, BuildRequest } from './message-build.protocol';
import type { DkimSigningKey, OutgoingEmail } from './outgoing-email';

interface Waiting {
  resolve: (message: Buffer) => void;
  reject: (error: Error) => void;
}

/**
 * One worker thread that builds messages, and the builds it has been asked
 * for. A thread that dies (an uncaught error, a crash) fails the builds it
 * held, which the delivery then retries like any failed attempt, and the next
 * build starts a new one. Not at once: a thread that cannot start at all
 * would otherwise be restarted in a loop.
 */
export class BuildThread {
  private worker: Worker | undefined;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 0;
  private closed = false;

  /** The thread starts with the first build: a process that only ever sends test-mode mail never starts one. */
  constructor(private readonly start: () => Worker) {}

  build(email: OutgoingEmail, key: DkimSigningKey | null): Promise<Buffer> {
    if (this.closed) return Promise.reject(new Error('the message build threads have been closed'));
    const worker = (this.worker ??= this.started());
    const id = this.nextId++;
    return new Promise<Buffer>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      const request: BuildRequest = { id, email, key };
      try {
        worker.postMessage(request);
      } catch (error) {
        // An email that cannot be cloned for the thread (it never should be): this build fails, not the thread.
        this.waiting.delete(id);
        reject(error as Error);
      }
    });
  }

  /** Builds in flight are not waited for: shutdown closes the threads only after the deliveries have drained. */
  async close(): Promise<void> {
    this.closed = true;
    await this.worker?.terminate();
  }

  private started(): Worker {
    const worker = this.start();
    // Idle build threads must never keep a stopping process alive.
    worker.unref();
    worker.on('message', (reply: BuildReply) => this.settle(reply));
    worker.on('error', (error) => this.failAll(error));
    worker.on('exit', (code) => {
      if (this.worker === worker) this.worker = undefined;
      this.failAll(new Error(`the message build thread stopped (exit code ${code})`));
    });
    return worker;
  }

  private settle(reply: BuildReply): void {
    const waiting = this.waiting.get(reply.id);
    if (!waiting) return;
    this.waiting.delete(reply.id);
    if ('error' in reply) waiting.reject(new Error(reply.error));
    else waiting.resolve(Buffer.from(reply.bytes.buffer, reply.bytes.byteOffset, reply.bytes.byteLength));
  }

  private failAll(error: Error): void {
    for (const waiting of this.waiting.values()) waiting.reject(error);
    this.waiting.clear();
  }
}
