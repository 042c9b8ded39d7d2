import { hash } from 'node:crypto';
import { ipClient } from '@mailroom/runtime';

/** How long a counted hit keeps its repeats from the same client uncounted. */
export const REPEAT_HIT_WINDOW_MS = 60_000;
/** Every new client and link is an entry; past this the oldest are forgotten (and may count again). */
const MAX_ENTRIES = 100_000;

/**
 * Which tracking hits count. The routes are public, and a counted hit writes
 * the email row and an event every subscribed webhook is POSTed: a script
 * looping over one pixel or link must not turn each GET into that work. So
 * one hit counts per pixel or link (the verified claim, not the token's text,
 * which base64url lets be spelled several ways) and client (an IPv4 address
 * or an IPv6 /64, as failed authentications are counted) within the window.
 * Per gateway replica and bounded; entries all last as long, so the Map's
 * insertion order is the order they end in.
 */
export class RepeatHitMemo {
  private readonly countedUntil = new Map<string, number>();

  constructor(
    private readonly windowMs = REPEAT_HIT_WINDOW_MS,
    private readonly maxEntries = MAX_ENTRIES,
  ) {}

  /** True for the first hit of `target` from `address` in the window (and remembers it), false for a repeat. */
  counts(target: string, address: string, now = Date.now()): boolean {
    // The target's digest, not the target: a click's carries its link (up to about 2,900 characters), and a memo
    // full of those was 300 MB, most of a gateway's memory, for anyone who sent GETs from enough addresses.
    const key = `${ipClient(address)} ${hash('sha256', target, 'base64url')}`;
    const until = this.countedUntil.get(key);
    if (until !== undefined && until > now) return false;
    this.countedUntil.delete(key);
    this.forgetEnded(now);
    while (this.countedUntil.size >= this.maxEntries) this.countedUntil.delete(this.countedUntil.keys().next().value as string);
    this.countedUntil.set(key, now + this.windowMs);
    return true;
  }

  private forgetEnded(now: number): void {
    for (const [key, until] of this.countedUntil) {
      if (until > now) return;
      this.countedUntil.delete(key);
    }
  }
}
