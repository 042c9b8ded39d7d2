/**
 * Calls `then` once this process's parent is gone. `npm start` runs under
 * `sh -c`, which dies of a SIGTERM sent to npm alone (by `timeout`, a CI
 * runner, a supervisor that signals one pid) without passing it on; an
 * orphan would keep the whole stack running with no one to stop it, so a new
 * parent means the one that started us is gone.
 */
export function whenOrphaned(then: () => void): void {
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) then();
  }, 1000).unref();
}
