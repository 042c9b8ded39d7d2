import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** The first directory from / down to `dir` that a user may not enter (no x bit for it as owner, group or other). */
export function firstDirectoryClosedTo(dir: string, uid: number, gid: number): { path: string; mode: number } | undefined {
  const chain: string[] = [];
  for (let path = resolve(dir); ; path = dirname(path)) {
    chain.unshift(path);
    if (dirname(path) === path) break;
  }
  for (const path of chain) {
    let stat;
    try {
      stat = statSync(path);
    } catch {
      return undefined; // Not made yet: what exists above it decides.
    }
    const mode = stat.mode & 0o777;
    const bit = stat.uid === uid ? 0o100 : stat.gid === gid ? 0o010 : 0o001;
    if (!(mode & bit)) return { path, mode };
  }
  return undefined;
}

/**
 * As root the embedded Postgres runs as the postgres OS user (README), which
 * must be able to pass every directory above its data. Under a home closed to
 * others (/root is 0700) initdb failed with a bare "Permission denied". Says
 * which directory stops it, and what to do; undefined when that is not why.
 */
export function postgresUserAccessProblem(databaseDir: string): string | undefined {
  if (process.getuid?.() !== 0) return undefined;
  let ids: [number, number];
  try {
    ids = [Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })), Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }))];
  } catch {
    return undefined;
  }
  const closed = firstDirectoryClosedTo(dirname(resolve(databaseDir)), ...ids);
  if (!closed) return undefined;
  return (
    `Started as root, the embedded Postgres runs as the postgres OS user, which cannot enter ${closed.path} (mode ${closed.mode.toString(8)}) ` +
    `on the way to ${databaseDir}. Set DATA_DIR to a directory outside it (e.g. /var/lib/mailroom), or let others pass it: chmod o+x ${closed.path}`
  );
}
