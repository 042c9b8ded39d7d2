import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { builtSourceFiles, packagesMissingAtRuntime } from './test/runtime-packages';

const ROOT = join(__dirname, '..', '..');
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
/** The instructions of the last stage: the image that ships. */
const runtimeStage = dockerfile.split(/^FROM /m).at(-1)!;

describe('Dockerfile', () => {
  it('builds in one stage and ships production dependencies only', () => {
    expect(dockerfile.match(/^FROM /gm)?.length).toBeGreaterThanOrEqual(2);
    expect(dockerfile).toMatch(/RUN npm ci\b[^\n]*\n(?:.*\n)*RUN npm run build/);
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    expect(runtimeStage).toMatch(/COPY --from=build \/app\/dist/);
  });

  it('ships every package the compiled apps, migrations and CLI load at runtime', () => {
    // The benchmark runs from a checkout (`npm run bench`, with the dev dependencies), never from the image.
    const shipped = builtSourceFiles(ROOT).filter((file) => !relative(ROOT, file).startsWith('scripts/bench/'));
    expect(shipped.length).toBeGreaterThan(100);
    expect(packagesMissingAtRuntime(ROOT, shipped)).toEqual([]);
  });

  it('runs as a numeric non-root user, so Kubernetes can check runAsNonRoot', () => {
    const user = runtimeStage.match(/^USER (\d+)(?::(\d+))?$/m);
    expect(user).not.toBeNull();
    expect(Number(user![1])).toBeGreaterThan(0);
  });

  it('starts the gateway unless a command picks another app', () => {
    expect(runtimeStage).toMatch(/^ENTRYPOINT \[.*"\/app\/docker\/entrypoint\.sh"\]$/m);
    expect(runtimeStage).toMatch(/^CMD \["gateway"\]$/m);
  });

  it('keeps node_modules, dist and git out of the build context', () => {
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'dist', '.git', '.data']));
  });
});

describe('docker/entrypoint.sh', () => {
  // A stand-in `node` on PATH prints what the entrypoint would run.
  let bin: string;
  beforeAll(() => {
    bin = mkdtempSync(join(tmpdir(), 'entrypoint-'));
    writeFileSync(join(bin, 'node'), '#!/bin/sh\necho "$@"\n');
    chmodSync(join(bin, 'node'), 0o755);
  });
  afterAll(() => rmSync(bin, { recursive: true, force: true }));
  const entrypoint = (...args: string[]) =>
    spawnSync('/bin/sh', [join(ROOT, 'docker', 'entrypoint.sh'), ...args], { encoding: 'utf8', env: { PATH: `${bin}:/usr/bin:/bin` } });

  it.each(['gateway', 'keys', 'domains', 'emails', 'webhook-dispatcher'])('runs the compiled main of %s', (app) => {
    const run = entrypoint(app);
    expect(run.stdout.trim()).toBe(`dist/apps/${app}/src/main.js`);
    // The build compiles it: the image holds only what tsconfig.build.json selects.
    expect(builtSourceFiles(ROOT)).toContain(join(ROOT, 'apps', app, 'src', 'main.ts'));
  });

  it('runs the migrations and the CLI with their arguments', () => {
    expect(entrypoint('migrate').stdout.trim()).toBe('dist/scripts/migrate.js');
    expect(entrypoint('cli', 'keys', 'create', '--name', 'admin').stdout.trim()).toBe('dist/scripts/cli.js keys create --name admin');
    expect(builtSourceFiles(ROOT)).toEqual(expect.arrayContaining([join(ROOT, 'scripts', 'migrate.ts'), join(ROOT, 'scripts', 'cli.ts')]));
  });

  it('refuses an unknown command with a usage message', () => {
    const run = entrypoint('mailer');
    expect(run.status).toBe(64);
    expect(run.stderr).toMatch(/usage: entrypoint\.sh gateway\|keys/);
  });

  it('is valid POSIX shell', () => {
    expect(() => execFileSync('/bin/sh', ['-n', join(ROOT, 'docker', 'entrypoint.sh')])).not.toThrow();
  });
});
