/** Largest Retry-After honoured, so an endpoint cannot park a delivery for weeks. */
export const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

/** Jitter adds up to 10% to each wait, never less, so replicas' retries spread out without ever coming early. */
export function withJitter(waitMs: number, random: () => number = Math.random): number {
  return Math.round(waitMs + waitMs * 0.1 * random());
}

/**
 * Retry-After (RFC 9110 §10.2.3) in milliseconds from now: delay-seconds or
 * an HTTP date. Null when absent or unreadable; capped at MAX_RETRY_AFTER_MS.
 */
export function parseRetryAfter(value: string | undefined, now: Date): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  let ms: number;
  if (/^\d+$/.test(trimmed)) ms = Number(trimmed) * 1000;
  else {
    const at = Date.parse(trimmed);
    if (Number.isNaN(at)) return null;
    ms = Math.max(0, at - now.getTime());
  }
  return Math.min(ms, MAX_RETRY_AFTER_MS);
}

/**
 * When the next attempt is due after `attemptsMade` attempts have failed, or
 * null when the delivery has failed for good. `schedule[i]` is the wait
 * before attempt i+1 (schedule[0] is the first attempt, usually 0s). A
 * Retry-After the endpoint sent is honoured: the wait is never shorter.
 */
export function nextAttemptAt(input: {
  schedule: readonly number[];
  attemptsMade: number;
  attemptLimit: number;
  retryAfterMs: number | null;
  now: Date;
  random?: () => number;
}): Date | null {
  if (input.attemptsMade >= input.attemptLimit) return null;
  const scheduled = input.schedule[Math.min(input.attemptsMade, input.schedule.length - 1)];
  const wait = Math.max(withJitter(scheduled, input.random), input.retryAfterMs ?? 0);
  return new Date(input.now.getTime() + wait);
}
