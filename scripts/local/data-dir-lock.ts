import { readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  for (;;) {
    try {
      writeFileSync(lockPath, `${process.pid}\n`, { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = holderOf(lockPath);
    if (holder && holder !== process.pid && running(holder)) {
      throw new Error(
        `DATA_DIR ${dataDir} is in use by another Mailroom process (pid ${holder}), which runs Postgres or NATS there. ` +
          `Stop it first, or give this one its own DATA_DIR (and ports). If pid ${holder} is not Mailroom, delete ${lockPath}.`,
      );
    }
    rmSync(lockPath, { force: true });
  }
  claimed.add(lockPath);
  process.once('exit', () => {
    if (holderOf(lockPath) === process.pid) rmSync(lockPath, { force: true });
  });
}
