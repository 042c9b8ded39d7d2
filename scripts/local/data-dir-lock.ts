import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const LOCK_FILE = 'mailroom.pid';
const claimed = new Set<string>();

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function holderOf(lockPath: string): number {
  try {
    return Number(readFileSync(lockPath, 'utf8').trim()) || 0;
  } catch {
    return 0;
  }
}

/**
 * Creates the lock holding our pid, or answers false when one exists. The pid is written to a file of our own first
 * and linked into place (link fails when the name exists), so the lock never exists empty: another start reading
 * it between creation and write would have taken an empty lock for a stale one and removed it.
 */
function createLock(lockPath: string): boolean {
  const ours = `${lockPath}.${process.pid}`;
  writeFileSync(ours, `${process.pid}\n`);
  try {
    linkSync(ours, lockPath);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return false;
  } finally {
    rmSync(ours, { force: true });
  }
}

/**
 * Removes the lock if it still holds `stalePid`. Two starts that both found the same stale lock would otherwise
 * both remove "it", the second removing the lock the first had just created, and both run. The lock is moved
 * aside (one rename wins) and read where it now is: a lock that is no longer the stale one is put back.
 */
export function removeStaleLock(lockPath: string, stalePid: number): void {
  const aside = `${lockPath}.stale.${process.pid}`;
  try {
    renameSync(lockPath, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return; // another start moved it first
    throw error;
  }
  try {
    if (holderOf(aside) !== stalePid) linkSync(aside, lockPath);
  } catch (error) {
    // EEXIST: a third start created a lock in the instant the lock was aside; it and the lock we moved both hold
    // the directory then. Three starts within that instant, after a kill left a stale lock, are not guarded.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(aside, { force: true });
  }
}

/**
 * Claims DATA_DIR (which must exist) for this process before it starts Postgres
 * or nats-server there. A second `npm start` on the same directory would start
 * a second Postgres on the same data, which refuses with nothing the launcher
 * could show, or a second nats-server, which does not refuse and writes the
 * same JetStream store. The claim is a file holding our pid, removed when we
 * exit; one left by a process that no longer runs (killed) is taken over.
 */
export function claimDataDir(dataDir: string): void {
  const lockPath = join(resolve(dataDir), LOCK_FILE);
  if (claimed.has(lockPath)) return;
  while (!createLock(lockPath)) {
    const holder = holderOf(lockPath);
    if (holder && holder !== process.pid && running(holder)) {
      throw new Error(
        `DATA_DIR ${dataDir} is in use by another Mailroom process (pid ${holder}), which runs Postgres or NATS there. ` +
          `Stop it first, or give this one its own DATA_DIR (and ports). If pid ${holder} is not Mailroom, delete ${lockPath}.`,
      );
    }
    removeStaleLock(lockPath, holder);
  }
  claimed.add(lockPath);
  process.once('exit', () => {
    if (holderOf(lockPath) === process.pid) rmSync(lockPath, { force: true });
  });
}
