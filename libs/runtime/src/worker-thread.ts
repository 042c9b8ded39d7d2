import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

/** The repository root (or dist/ in a build): this file is libs/runtime/src/worker-thread. */
const ROOT = join(__dirname, '..', '..', '..');

/**
 * A worker thread is a fresh module system: it first needs what every entry
 * point of ours starts with, @mailroom/* resolved as the build lays it out
 * (scripts/register-paths). Under the test runner the apps run from their
 * TypeScript source, which ts-jest compiles in memory and the thread knows
 * nothing of, so there the thread first compiles our .ts modules itself,
 * with the project's compiler options. A build never takes that path: its
 * modules are .js.
 */
const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
const root = workerData.root;
if (workerData.fromSource) {
  const { readFileSync } = require('node:fs');
  // From the repository, wherever the test runner was started.
  const ts = require('node:module').createRequire(root + '/package.json')('typescript');
  const { config } = ts.readConfigFile(root + '/tsconfig.json', ts.sys.readFile);
  const { options } = ts.convertCompilerOptionsFromJson(config.compilerOptions, root);
  options.module = ts.ModuleKind.CommonJS;
  options.sourceMap = false;
  require.extensions['.ts'] = (module, filename) =>
    module._compile(ts.transpileModule(readFileSync(filename, 'utf8'), { compilerOptions: options, fileName: filename }).outputText, filename);
}
require(root + '/scripts/register-paths');
require(workerData.modulePath);
`;

/**
 * A worker thread running one of our modules, given its path without the
 * extension: the compiled .js in a build, the .ts source under the test runner.
 */
export function startWorkerThread(modulePathWithoutExtension: string): Worker {
  const fromSource = __filename.endsWith('.ts');
  const modulePath = `${modulePathWithoutExtension}${fromSource ? '.ts' : '.js'}`;
  return new Worker(BOOTSTRAP, { eval: true, workerData: { root: ROOT, fromSource, modulePath } });
}
