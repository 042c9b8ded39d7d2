import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '../../..');

/**
 * Compiles the apps to dist/ (incremental), so a test can run one as its own process, as in production.
 * The e2e global setup calls it once, before any suite starts: suites must not call it themselves, since tsc
 * rewrites dist/ in place and a suite building beside another (two Jest workers, a fresh checkout in CI) could
 * start a process that loads a file the other build has just truncated.
 */
export function buildApps(): void {
  const build = spawnSync('npm', ['run', '-s', 'build'], { cwd: ROOT, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`build failed: ${build.stdout}${build.stderr}`);
}

/**
 * How long a test waits for an app it runs as its own process to answer ready. Waited for by polling, so it costs
 * nothing when the process is quick: about 3 s on a quiet machine, but a loaded CI machine runs ten times slower with
 * other suites booting beside it, and an emails process was seen not back after 30 s there. Leave it at least that
 * much longer than the quiet boot, and give a test that boots a process a timeout to match.
 */
export const PROCESS_READY_TIMEOUT_MS = 90_000;

export interface AppProcess {
  child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal) and the signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** What the process wrote to stderr so far, for failure messages. */
  stderr(): string;
  /** What it wrote to stdout so far (its pino logs). */
  stdout(): string;
}

/** Runs dist/apps/<app>/src/main.js with exactly this environment (plus PATH). */
export function startAppProcess(app: string, env: Record<string, string>): AppProcess {
  const child = spawn(process.execPath, [join(ROOT, `dist/apps/${app}/src/main.js`)], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, exited, stderr: () => stderr, stdout: () => stdout };
}
