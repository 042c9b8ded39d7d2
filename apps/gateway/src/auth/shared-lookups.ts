/**
 * Lookups in flight, by what they look up, so concurrent callers asking the
 * same thing share one: a burst of requests with a key not yet cached (a cold
 * replica, a key just changed) costs the keys service one question, not one
 * per request. A lookup is forgotten once it settles, a failed one too, so a
 * failure is handed to the callers that shared it and never kept.
 */
export class SharedLookups<T> {
  private readonly running = new Map<string, Promise<T>>();

  share(key: string, lookup: () => Promise<T>): Promise<T> {
    const running = this.running.get(key);
    if (running) return running;
    const started: Promise<T> = lookup().finally(() => {
      // forgetAll() may have made way for a newer lookup of the same key meanwhile: that one stays.
      if (this.running.get(key) === started) this.running.delete(key);
    });
    this.running.set(key, started);
    return started;
  }

  /** Later callers start afresh; callers already waiting still get their lookup's answer. */
  forgetAll(): void {
    this.running.clear();
  }
}
