/**
 * Which event stream a consumer last had its durable on, told apart by the
 * stream's creation time: a stream made anew after a loss (deleted, or a
 * NATS server back without its store) has a later one. Kept in memory, so a
 * process that starts after the loss does not know of the old stream and
 * creates its durable as if for the first time.
 */
export class StreamsWithDurable {
  private lastCreated?: string;

  /** The durable exists on the stream created at `created`. */
  seen(created: string): void {
    this.lastCreated = created;
  }

  /** Whether the stream created at `created` replaces one the durable was on: the durable vanished with its stream. */
  replaces(created: string): boolean {
    return this.lastCreated !== undefined && this.lastCreated !== created;
  }
}
