import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import * as ts from 'typescript';

/** The sources `npm run build` compiles into dist/, as tsconfig.build.json selects them. */
export function builtSourceFiles(root: string): string[] {
  const configPath = join(root, 'tsconfig.build.json');
  const { config } = ts.readConfigFile(configPath, ts.sys.readFile);
  return ts.parseJsonConfigFileContent(config, ts.sys, root, undefined, configPath).fileNames;
}

/** `nats` of `nats/lib/x`, `@nestjs/core` of `@nestjs/core/y`. */
function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

const BUILTINS = new Set(builtinModules);

/**
 * The npm packages a source file loads when it runs: what its compiled
 * CommonJS requires (imports used only as types are elided, as tsc elides
 * them), dynamic imports included, and the packages it resolves files of.
 */
export function packagesLoadedBy(file: string): string[] {
  const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    fileName: file,
  });
  const specifiers = [...outputText.matchAll(/\brequire(?:\.resolve)?\(\s*["']([^"']+)["']/g)].map((match) => match[1]);
  return specifiers
    .filter((specifier) => !specifier.startsWith('.') && !specifier.startsWith('node:') && !specifier.startsWith('@mailroom/') && !BUILTINS.has(specifier))
    .map(packageName);
}

interface LockedPackage {
  dev?: boolean;
  optional?: boolean;
}

/**
 * Packages the sources load that the image's `npm ci --omit=dev --omit=optional`
 * leaves out, each with the file that loads it: not a production dependency
 * in package.json, or locked as dev or optional in package-lock.json.
 */
export function packagesMissingAtRuntime(root: string, files: string[]): string[] {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockedPackage> };
  const shipped = (name: string) => {
    const locked = lock.packages[`node_modules/${name}`];
    return name in (manifest.dependencies ?? {}) && locked !== undefined && !locked.dev && !locked.optional;
  };
  return files.flatMap((file) => packagesLoadedBy(file).filter((name) => !shipped(name)).map((name) => `${name} (${relative(root, file)})`));
}
