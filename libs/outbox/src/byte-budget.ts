import type { JsMsg } from 'nats';

/**
 * The bytes of event messages a consumer holds in memory (received and not yet
 * settled), against the limit its pulls stay within (pullWithinBudget). A
 * message counts once, from take() until give(), however often either is called.
 */
export class ByteBudget {
  private readonly sizes = new Map<JsMsg, number>();
  private heldBytes = 0;
  private highest = 0;
  private waiting: Array<() => void> = [];

  constructor(readonly limit: number) {}

  /** Bytes held now. */
  get held(): number {
    return this.heldBytes;
  }

  /** The most ever held at once: what a test (or an operator, through a gauge) checks the limit against. */
  get peak(): number {
    return this.highest;
  }

  take(message: JsMsg): void {
    if (this.sizes.has(message)) return;
    const size = message.data.length;
    this.sizes.set(message, size);
    this.heldBytes += size;
    this.highest = Math.max(this.highest, this.heldBytes);
  }

  give(message: JsMsg): void {
    const size = this.sizes.get(message);
    if (size === undefined) return;
    this.sizes.delete(message);
    this.heldBytes -= size;
    const waiting = this.waiting;
    this.waiting = [];
    waiting.forEach((wake) => wake());
  }

  /** Resolves at the next give(). */
  nextRelease(): Promise<void> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }
}
