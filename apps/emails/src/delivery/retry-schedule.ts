/**
 * When a recipient that failed temporarily is tried again. `attempts` counts
 * the attempts made so far, including the one that just failed; the schedule
 * holds the wait after the 1st, 2nd, … failure. Null means the schedule is
 * used up and the recipient has failed for good.
 */
export function nextAttemptAt(schedule: readonly number[], attempts: number, now: Date): Date | null {
  const wait = schedule[attempts - 1];
  return wait === undefined ? null : new Date(now.getTime() + wait);
}
