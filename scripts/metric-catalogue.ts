import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { metricsRegistry } from '@mailroom/runtime';

const ROOT = join(__dirname, '..');

export interface CataloguedMetric {
  type: string;
  /** Label names, sorted. */
  labels: string[];
}

/** Every module that defines metrics (they register on the process's registry when loaded): the *metrics.ts files. */
function metricModules(): string[] {
  const files = (['apps', 'libs'] as const).flatMap((top) => readdirSync(join(ROOT, top), { recursive: true, encoding: 'utf8' }).map((file) => join(ROOT, top, file)));
  return files.filter((file) => /metrics\.ts$/.test(file) && !relative(ROOT, file).split('/').includes('test'));
}

/** The mailroom_ metrics the apps register, read from prom-client's registry once every metrics module is loaded. */
export async function registeredMetrics(): Promise<Record<string, CataloguedMetric>> {
  const modules = metricModules();
  if (modules.length < 5) throw new Error(`found only ${modules.length} metrics modules: has the layout changed?`);
  for (const module of modules) require(module);
  // prom-client's metric objects keep their label names, which its types leave out.
  const metrics = metricsRegistry.getMetricsAsArray() as unknown as { name: string; labelNames?: string[]; get(): Promise<{ type: string }> }[];
  const entries = await Promise.all(
    metrics
      .filter((metric) => metric.name.startsWith('mailroom_'))
      .map(async (metric) => [metric.name, { type: (await metric.get()).type, labels: [...(metric.labelNames ?? [])].sort() }] as const),
  );
  return Object.fromEntries(entries);
}

export interface DocumentedMetric extends CataloguedMetric {
  /** For each label whose cell lists its values in parentheses, those values. */
  values: Record<string, string[]>;
}

/**
 * The README's metrics table: name → type, label names (the label cell's backticked names, outside the parentheses)
 * and the values a label's parentheses list (`outcome` (`ok`, `error`)); a parenthesis of prose lists none.
 */
export function readmeMetrics(): Record<string, DocumentedMetric> {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const rows = [...readme.matchAll(/^ *\| `(mailroom_[a-z_]+)` \| ([a-z]+) \|([^|]*)\|/gm)];
  return Object.fromEntries(
    rows.map(([, name, type, cell]) => {
      const labels = [...cell.replace(/\([^)]*\)/g, '').matchAll(/`([a-z_]+)`/g)].map(([, label]) => label).sort();
      const values = Object.fromEntries(
        [...cell.matchAll(/`([a-z_]+)` \(([^)]*)\)/g)].map(([, label, list]) => [label, [...list.matchAll(/`([^`]+)`/g)].map(([, value]) => value)]),
      );
      return [name, { type, labels, values }];
    }),
  );
}
