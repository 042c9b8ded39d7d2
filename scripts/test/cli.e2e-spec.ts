import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createTestDatabase, dropTestDatabase } from '@mailroom/testing';

const ROOT = join(__dirname, '../..');

/** `npm run -s cli -- …` as a user runs it, from dist/. */
const cli = (args: string[], env: Record<string, string> = {}) => {
  const run = spawnSync(process.execPath, ['dist/scripts/cli.js', ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 30_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
};

describe('the bootstrap CLI', () => {
  it('answers --help (and -h, help) with its usage on stdout and exit 0, as asking for help is no mistake', () => {
    for (const args of [['--help'], ['-h'], ['help'], ['keys', 'create', '--help']]) {
      const run = cli(args);
      expect({ args, status: run.status, stderr: run.stderr }).toEqual({ args, status: 0, stderr: '' });
      expect(run.stdout).toContain('npm run -s cli -- keys create --name NAME');
    }
  });

  it('answers an unknown command with its usage on stderr and exit 2', () => {
    const run = cli(['keys', 'delete']);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('npm run -s cli -- keys create --name NAME');
  });

  describe('keys create on a database the migrations have not reached', () => {
    let databaseUrl: string;
    beforeAll(async () => {
      databaseUrl = await createTestDatabase();
    });
    afterAll(() => dropTestDatabase(databaseUrl));

    it('says to run the migrations first rather than quote Postgres', () => {
      const run = cli(['keys', 'create', '--name', 'first'], { DATABASE_URL: databaseUrl });
      expect(run.status).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain('the keys schema is not migrated');
      expect(run.stderr).toContain('npm run migrate');
    });
  });
});
