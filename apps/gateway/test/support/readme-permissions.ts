import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One route of the README's Permissions table: `METHOD /path`, or `/path` for every method on it and under it. */
interface ReadmeRoute {
  method: string | null;
  /** The path as a pattern: `{name}` stands for one segment, a trailing `…` for the rest of the path. */
  path: RegExp;
  /** `null` for the table's "none" (a public route). */
  permission: string | null;
}

const README = join(__dirname, '..', '..', '..', '..', 'README.md');

function pathPattern(path: string, withSubpaths: boolean): RegExp {
  const escaped = path
    .split(/(\{[^}]+\}|…)/)
    .map((part) => (part === '…' ? '.+' : /^\{[^}]+\}$/.test(part) ? '[^/]+' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${escaped}${withSubpaths ? '(/.*)?' : ''}$`);
}

/** The rows of the table under "### Permissions", as the README states them. */
export function readmePermissionRoutes(): ReadmeRoute[] {
  const readme = readFileSync(README, 'utf8');
  const section = readme.slice(readme.indexOf('### Permissions'));
  const table = section.slice(0, section.search(/\n\n(?!\|)/));
  return table
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => {
      const [routes, permission] = line.split('|').slice(1, 3);
      const granted = permission.trim() === 'none' ? null : permission.trim().replace(/`/g, '');
      return [...routes.matchAll(/`([^`]+)`/g)].map(([, route]) => {
        const [method, path] = route.includes(' ') ? route.split(' ') : [null, route];
        return { method, path: pathPattern(path, method === null), permission: granted };
      });
    });
}

/**
 * The permission the README gives `METHOD path` (`null`: none), `undefined` when no row names it. A row
 * naming the method wins over one for every method, as `POST /v1/emails` does over a `/v1/emails` row.
 */
export function readmePermissionOf(routes: ReadmeRoute[], method: string, path: string): string | null | undefined {
  const matching = routes.filter((route) => route.path.test(path) && (route.method === null || route.method === method));
  return (matching.find((route) => route.method === method) ?? matching[0])?.permission;
}
