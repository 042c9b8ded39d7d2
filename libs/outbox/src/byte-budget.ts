import type { JsMsg } from 'nats';

/**
 * The bytes of items a process holds in memory, against a limit it takes more
 * only within: event messages a consumer received and has not settled yet
 * (messageBudget, pullWithinBudget), or deliveries the webhook dispatcher
 * claimed and has not recorded yet (DeliveryPool). An item counts once, from
 * take() until give(), however often either is called.
 */
export class ByteBudget<T extends object> {
  private readonly sizes = new Map<T, number>();
  private heldBytes = 0;
  private highest = 0;
  private waiting: Array<() => void> = [];

  constructor(
    readonly limit: number,
    private readonly sizeOf: (item: T) => number,
  ) {}

  /** Bytes held now. */
  get held(): number {
    return this.heldBytes;
  }

  /** The most ever held at once: what a test (or an operator, through a gauge) checks the limit against. */
  get peak(): number {
    return this.highest;
  }

  take(item: T): void {
    if (this.sizes.has(item)) return;
    const size = this.sizeOf(item);
    this.sizes.set(item, size);
    this.heldBytes += size;
    this.highest = Math.max(this.highest, this.heldBytes);
  }

  give(item: T): void {
    const size = this.sizes.get(item);
    if (size === undefined) return;
    this.sizes.delete(item);
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

/** The budget of a consumer's event messages, each counted by its payload as published. */
export function messageBudget(limit: number): ByteBudget<JsMsg> {
  return new ByteBudget(limit, (message: JsMsg) => message.data.length);
}
