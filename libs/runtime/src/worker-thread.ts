import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

/** The repository root (or dist/ in a build): this file is libs/runtime/src/worker-thread. */
const ROOT = join(__dirname, '..', '..', '..');

/**
 * Under the test runner the apps run from their TypeScript source, which
 * ts-jest compiles in memory; a worker thread is a fresh module system that
 * knows nothing of that. So the thread compiles our .ts modules itself, with
 * the project's compiler options, and resolves @mailroom/* as the build does.
 * A build never takes this path: its modules are .js.
 */
const FROM_SOURCE = `
const { readFileSync } = require('node:fs');
const { workerData } = require('node:worker_threads');
const root = workerData.root;
// From the repository, wherever the test runner was started.
const requireFromRoot = require('node:module').createRequire(root + '/package.json');
const ts = requireFromRoot('typescript');
const { config } = ts.readConfigFile(root + '/tsconfig.json', ts.sys.readFile);
const { options } = ts.convertCompilerOptionsFromJson(config.compilerOptions, root);
options.module = ts.ModuleKind.CommonJS;
options.sourceMap = false;
requireFromRoot('tsconfig-paths').register({ baseUrl: root, paths: { '@mailroom/*': ['libs/*/src'] } });
require.extensions['.ts'] = (module, filename) =>
  module._compile(ts.transpileModule(readFileSync(filename, 'utf8'), { compilerOptions: options, fileName: filename }).outputText, filename);
require(workerData.modulePath);
`;

/**
 * A worker thread running one of our modules, given its path without the
 * extension: the compiled .js in a build, the .ts source under the test runner.
 */
export function startWorkerThread(modulePathWithoutExtension: string): Worker {
  if (__filename.endsWith('.ts')) {
    return new Worker(FROM_SOURCE, { eval: true, workerData: { root: ROOT, modulePath: `${modulePathWithoutExtension}.ts` } });
  }
  return new Worker(`${modulePathWithoutExtension}.js`);
}
