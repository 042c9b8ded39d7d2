import type { Worker } from 'node:worker_threads';
import type { BuildReply, BuildRequest, ThreadMessage } from './message-build.protocol';
import type { DkimSigningKey, OutgoingEmail } from './outgoing-email';

/**
 * How long a thread with builds waiting may go without finishing one. A build
 * takes a third of a millisecond, and one with the largest attachments allowed
 * well under a second; a thread silent for a minute is stuck (a build that
 * never ends would otherwise hold every later one, and so every delivery of
 * the process, for good).
 */
const BUILD_STALL_MS = 60_000;

interface Waiting {
  resolve: (message: Buffer) => void;
  reject: (error: Error) => void;
}

/**
 * One worker thread that builds messages, and the builds it has been asked
 * for. A thread that dies (an uncaught error, a crash) fails the builds it
 * held, which the delivery then retries like any failed attempt, and the next
 * build starts a new one. Not at once: a thread that cannot start at all
 * would otherwise be restarted in a loop. A thread that answers none of its
 * builds for `stallMs` is stopped the same way.
 */
export class BuildThread {
  private worker: Worker | undefined;
  /** The current thread has loaded (its start, which a loaded machine can make slow, is not a stall). */
  private workerReady = false;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 0;
  private closed = false;
  /** Runs while builds wait; each answer starts it again. */
  private stallTimer: NodeJS.Timeout | undefined;
  private readonly stallMs: number;

  /** The thread starts with the first build: a process that only ever sends test-mode mail never starts one. */
  constructor(
    private readonly start: () => Worker,
    options: { stallMs?: number } = {},
  ) {
    this.stallMs = options.stallMs ?? BUILD_STALL_MS;
  }

  build(email: OutgoingEmail, key: DkimSigningKey | null): Promise<Buffer> {
    if (this.closed) return Promise.reject(new Error('the message build threads have been closed'));
    const worker = (this.worker ??= this.started());
    const id = this.nextId++;
    return new Promise<Buffer>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.armStallClock();
      const request: BuildRequest = { id, email, key };
      try {
        worker.postMessage(request);
      } catch (error) {
        // An email that cannot be cloned for the thread (it never should be): this build fails, not the thread.
        this.waiting.delete(id);
        if (!this.waiting.size) this.stopStallClock();
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
    this.workerReady = false;
    // Idle build threads must never keep a stopping process alive.
    worker.unref();
    worker.on('message', (message: ThreadMessage) => {
      if ('id' in message) return this.settle(message);
      if (this.worker !== worker) return;
      this.workerReady = true;
      this.armStallClock();
    });
    // Only the current thread's end fails the builds waiting: a stalled thread stopped after it was replaced exits
    // while the builds waiting are its successor's.
    worker.on('error', (error) => {
      if (this.worker === worker) this.failAll(error);
    });
    worker.on('exit', (code) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.failAll(new Error(`the message build thread stopped (exit code ${code})`));
    });
    return worker;
  }

  private settle(reply: BuildReply): void {
    const waiting = this.waiting.get(reply.id);
    if (!waiting) return;
    this.waiting.delete(reply.id);
    this.stopStallClock();
    this.armStallClock();
    if ('error' in reply) waiting.reject(new Error(reply.error));
    else waiting.resolve(Buffer.from(reply.bytes.buffer, reply.bytes.byteOffset, reply.bytes.byteLength));
  }

  private failAll(error: Error): void {
    this.stopStallClock();
    for (const waiting of this.waiting.values()) waiting.reject(error);
    this.waiting.clear();
  }

  /**
   * Starts the stall clock when builds wait on a thread that has loaded and it is not running yet: past stallMs
   * without an answer the thread is stopped, its builds fail, to be retried, and the next build starts a new thread.
   */
  private armStallClock(): void {
    const worker = this.worker;
    if (!worker || !this.workerReady || !this.waiting.size || this.stallTimer) return;
    this.stallTimer = setTimeout(() => {
      if (this.worker === worker) this.worker = undefined;
      this.failAll(new Error(`the message build thread answered no build for ${this.stallMs} ms and was stopped`));
      void worker.terminate();
    }, this.stallMs);
    this.stallTimer.unref();
  }

  private stopStallClock(): void {
    clearTimeout(this.stallTimer);
    this.stallTimer = undefined;
  }
}
