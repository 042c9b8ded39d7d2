/**
 * Calls `then` once this process's parent is gone. A parent killed outright
 * (npm by SIGKILL, or a `sh -c` that dies of a SIGTERM without passing it on,
 * as npm's did before its start script exec'd node) signals nothing; an
 * orphan would keep the whole stack running with no one to stop it, so a new
 * parent means the one that started us is gone.
 */
export function whenOrphaned(then: () => void): void {
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) then();
  }, 1000).unref();
}
