import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claimDataDir, removeStaleLock } from './data-dir-lock';

/** The pid of a process that has exited. */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;

describe('the DATA_DIR claim of npm start', () => {
  let dataDir: string;
  let lockPath: string;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'mailroom-lock-'));
    lockPath = join(dataDir, 'mailroom.pid');
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  const holder = () => Number(readFileSync(lockPath, 'utf8').trim());

  it('claims a directory nobody holds, leaving only the lock with its pid', () => {
    claimDataDir(dataDir);
    expect(holder()).toBe(process.pid);
    expect(readdirSync(dataDir)).toEqual(['mailroom.pid']);
  });

  it('refuses a directory a running process holds, naming it', () => {
    writeFileSync(lockPath, `${process.ppid}\n`);
    expect(() => claimDataDir(dataDir)).toThrow(`is in use by another Mailroom process (pid ${process.ppid})`);
    expect(holder()).toBe(process.ppid);
  });

  it('takes over the lock of a process that no longer runs', () => {
    writeFileSync(lockPath, `${deadPid()}\n`);
    claimDataDir(dataDir);
    expect(holder()).toBe(process.pid);
    expect(readdirSync(dataDir)).toEqual(['mailroom.pid']);
  });

  it('removes a stale lock only while it is still the stale one', () => {
    const stale = deadPid();
    writeFileSync(lockPath, `${stale}\n`);
    removeStaleLock(lockPath, stale);
    expect(readdirSync(dataDir)).toEqual([]);

    // Another start found the same stale lock, removed it and claimed the directory before this one got to it:
    // its fresh lock stays (removing it let two starts run Postgres on one directory).
    writeFileSync(lockPath, `${process.ppid}\n`);
    removeStaleLock(lockPath, stale);
    expect(holder()).toBe(process.ppid);
    expect(readdirSync(dataDir)).toEqual(['mailroom.pid']);
  });
});
