import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import * as ts from 'typescript';

/**
 * On V8 11 (Node 20), an object literal that defines a property after a
 * spread (`{ ...email, html }`) defines each such property through the
 * runtime: about a microsecond each, against nanoseconds for a plain literal,
 * and a send's answer alone had twenty of them (40 µs of the emails
 * service's CPU per request on a slow machine). Object.assign, or the spread
 * last, costs what a literal does; Object.assign only onto objects our code
 * built, since it would set a parsed `__proto__` key as the prototype. The
 * rule holds in all product code, because which code is hot changes and a
 * profile does not show the cause.
 */
function propertiesAfterSpread(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isObjectLiteralExpression(node)) {
      const firstSpread = node.properties.findIndex((property) => ts.isSpreadAssignment(property));
      if (firstSpread >= 0 && node.properties.slice(firstSpread + 1).some((property) => !ts.isSpreadAssignment(property))) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart());
        found.push(`${file}:${line + 1}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('product code', () => {
  it('defines no property after a spread in an object literal', () => {
    const files = execFileSync('git', ['ls-files', 'apps/*.ts', 'libs/*.ts'], { cwd: `${__dirname}/../..`, encoding: 'utf8' })
      .split('\n')
      // The OpenAPI document is built once at boot, from literals that read best with conditional spreads.
      .filter((file) => file && !file.endsWith('.spec.ts') && !file.includes('/test/') && !file.startsWith('libs/testing/') && !file.startsWith('apps/gateway/src/openapi/'));
    expect(files.length).toBeGreaterThan(100);
    process.chdir(`${__dirname}/../..`);
    expect(files.flatMap(propertiesAfterSpread)).toEqual([]);
  });
});
