import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { whenOrphaned } from './local/when-orphaned';

/**
 * `npm start`. A terminal's Ctrl-C sends SIGINT to every process of its
 * foreground group at once: Postgres takes it as a fast shutdown and
 * nats-server quits, while the apps are still finishing their work in flight,
 * which then cannot commit. So the launcher and all it starts run in a process
 * group of their own (detached), and this process, left in the terminal's
 * group, passes each signal on: the launcher alone decides the order, apps
 * first, then Postgres and NATS.
 */
const launcher = spawn(process.execPath, [join(__dirname, 'launch-stack.js')], { detached: true, stdio: 'inherit' });
const passOn = (signal: NodeJS.Signals) => () => void launcher.kill(signal);
process.on('SIGINT', passOn('SIGINT'));
process.on('SIGTERM', passOn('SIGTERM'));
process.on('SIGHUP', passOn('SIGHUP'));
// The stack stops as on Ctrl-C when npm is gone without a word (and the launcher stops when this process is).
whenOrphaned(() => launcher.kill('SIGTERM'));
launcher.once('exit', (code, signal) => {
  stopWhatItLeft(launcher.pid!);
  process.exit(code ?? (signal ? 1 : 0));
});

/**
 * A launcher killed outright (SIGKILL, the OOM killer) stopped nothing it
 * started: the apps, Postgres and nats-server would serve on without it. They
 * share its process group, so a SIGTERM to the group stops them as on Ctrl-C,
 * each app finishing its work in flight (Postgres's smart shutdown lets their
 * sessions end). After a clean stop the group is empty and this does nothing.
 */
function stopWhatItLeft(group: number): void {
  try {
    process.kill(-group, 'SIGTERM');
  } catch {
    // ESRCH: nothing left.
  }
}
