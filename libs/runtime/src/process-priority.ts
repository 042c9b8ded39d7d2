import { getPriority, setPriority } from 'node:os';

/**
 * Applies PROCESS_NICE: lowers this process's CPU priority, never raises it
 * (that needs privileges an app should not hold). A process already started
 * at a lower priority (`nice -n 15 npm start`) is left as it is. Returns the
 * nice value the process runs at.
 */
export function lowerProcessPriority(nice: number): number {
  const current = getPriority();
  if (nice > current) setPriority(nice);
  return getPriority();
}
