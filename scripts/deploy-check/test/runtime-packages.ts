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

/** A module named by an import or export that tsc keeps in the JavaScript: anything not marked `type`. */
function runtimeSpecifier(statement: ts.Statement): string | undefined {
  if (ts.isImportDeclaration(statement)) {
    const clause = statement.importClause;
    const bindings = clause?.namedBindings;
    const onlyTypes =
      clause !== undefined &&
      (clause.isTypeOnly || (!clause.name && bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((element) => element.isTypeOnly)));
    return onlyTypes ? undefined : (statement.moduleSpecifier as ts.StringLiteral).text;
  }
  if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && !statement.isTypeOnly) return (statement.moduleSpecifier as ts.StringLiteral).text;
  if (ts.isImportEqualsDeclaration(statement) && !statement.isTypeOnly && ts.isExternalModuleReference(statement.moduleReference)) {
    return (statement.moduleReference.expression as ts.StringLiteral).text;
  }
  return undefined;
}

/**
 * The npm packages a source file loads when it runs: every import and export
 * not marked `type`, dynamic imports, requires and the packages it resolves
 * files of. It parses without compiling (a tenth of the time over the whole
 * build), so an import used only as a type but not marked so counts too:
 * stricter than tsc, which drops it, and fixed by writing `import type`.
 */
export function packagesLoadedBy(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const statements = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, false).statements;
  const declared = statements.map(runtimeSpecifier).filter((specifier): specifier is string => specifier !== undefined);
  const called = [...text.matchAll(/\b(?:require(?:\.resolve)?|import)\(\s*["']([^"']+)["']/g)].map((match) => match[1]);
  return [...declared, ...called]
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
