import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';

const README = join(__dirname, '..', '..', '..', '..', 'README.md');

/** A fenced block of the README that a `<!-- example: name -->` line names: the fence's info string and its text. */
export interface ReadmeExample {
  info: string;
  code: string;
}

/**
 * The README's examples by name. The marker is an HTML comment, invisible on the rendered page, on the line
 * right above the fence, so an example is found however the prose around it is reworded or moved.
 */
export function readmeExamples(): Map<string, ReadmeExample> {
  const readme = readFileSync(README, 'utf8');
  const marked = readme.matchAll(/^<!-- example: ([a-z0-9-]+) -->\n```([^\n]*)\n([\s\S]*?)^```$/gm);
  return new Map([...marked].map(([, name, info, code]) => [name, { info: info.trim(), code }]));
}

/** Fields whose value is part of the contract, compared as written: everything else is compared by type. */
const FIXED_FIELDS = new Set(['object', 'status', 'type', 'code', 'mode', 'reason', 'deleted']);
/** `email_01JD7X3…`, `evt_01JD7X3Q9Y5T4V2W8K6M0N1P2R`: an id of a prefix, whole or cut short with `…`. */
const ID = /^([a-z]+)_[0-9A-HJKMNP-TV-Z]+…?$/;
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

/**
 * What sets an answer apart from the README's example of it, one line per difference, with the JSON path: the same
 * keys at every level, the same JSON types, the same value in a fixed field (`object`, `status`, `type`, an error's
 * `code`…), an id of the same prefix and a timestamp where the example shows one. Arrays compare every item with the
 * example's first, and a non-empty example wants a non-empty answer.
 */
export function shapeDifferences(example: unknown, actual: unknown, path = '$'): string[] {
  const field = path.slice(path.lastIndexOf('.') + 1);
  if (example === null || typeof example !== 'object') {
    if (FIXED_FIELDS.has(field)) return Object.is(example, actual) ? [] : [`${path}: ${JSON.stringify(actual)}, the example says ${JSON.stringify(example)}`];
    if (example === null || typeof actual !== typeof example) return example === actual ? [] : [`${path}: ${JSON.stringify(actual)} where the example has ${JSON.stringify(example)}`];
    if (typeof example !== 'string') return [];
    const id = ID.exec(example);
    if (id && !new RegExp(`^${id[1]}_[0-9A-HJKMNP-TV-Z]{26}$`).test(actual as string)) return [`${path}: ${JSON.stringify(actual)} is no ${id[1]}_ id, as the example's is`];
    if (ISO_TIME.test(example) && !(ISO_TIME.test(actual as string) && !Number.isNaN(Date.parse(actual as string)))) return [`${path}: ${JSON.stringify(actual)} is no ISO 8601 time`];
    return [];
  }
  if (Array.isArray(example)) {
    if (!Array.isArray(actual)) return [`${path}: ${JSON.stringify(actual)} where the example has an array`];
    if (example.length > 0 && actual.length === 0) return [`${path}: [] where the example has items`];
    return example.length === 0 ? [] : actual.flatMap((item, index) => shapeDifferences(example[0], item, `${path}[${index}]`));
  }
  if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return [`${path}: ${JSON.stringify(actual)} where the example has an object`];
  const expectedKeys = Object.keys(example);
  const actualKeys = Object.keys(actual);
  return [
    ...expectedKeys.filter((key) => !(key in actual)).map((key) => `${path}.${key}: in the example, not in the answer`),
    ...actualKeys.filter((key) => !(key in example)).map((key) => `${path}.${key}: in the answer, not in the example`),
    ...expectedKeys
      .filter((key) => key in actual)
      .flatMap((key) => shapeDifferences((example as Record<string, unknown>)[key], (actual as Record<string, unknown>)[key], `${path}.${key}`)),
  ];
}

/**
 * Runs a TypeScript example as written, top-level `await` included: its imports come from `modules`, and the names it
 * uses without declaring them (`process`, or what an earlier example declared) from `scope`.
 */
export async function runTypeScriptExample(code: string, modules: Record<string, unknown>, scope: Record<string, unknown>): Promise<void> {
  const { outputText } = ts.transpileModule(code, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } });
  const load = (name: string) => {
    if (!(name in modules)) throw new Error(`the example imports ${name}, which the test does not provide`);
    return modules[name];
  };
  const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (...parameters: string[]) => (...values: unknown[]) => Promise<void>;
  await new AsyncFunction('require', 'exports', ...Object.keys(scope), outputText)(load, {}, ...Object.values(scope));
}
