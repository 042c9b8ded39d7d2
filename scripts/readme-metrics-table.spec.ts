import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { metricsRegistry } from '@mailroom/runtime';

const ROOT = join(__dirname, '..');

/** Every module that defines metrics (they register on the process's registry when loaded): the *metrics.ts files. */
function metricModules(): string[] {
  const files = (['apps', 'libs'] as const).flatMap((top) => readdirSync(join(ROOT, top), { recursive: true, encoding: 'utf8' }).map((file) => join(ROOT, top, file)));
  return files.filter((file) => /metrics\.ts$/.test(file) && !relative(ROOT, file).split('/').includes('test'));
}

interface DocumentedMetric {
  type: string;
  labels: string[];
}

/** The README's metrics table: name → type and label names (the label cell's backticked names, outside the parentheses that list values). */
function readmeMetrics(): Record<string, DocumentedMetric> {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const rows = [...readme.matchAll(/^ *\| `(mailroom_[a-z_]+)` \| ([a-z]+) \|([^|]*)\|/gm)];
  return Object.fromEntries(
    rows.map(([, name, type, labels]) => [name, { type, labels: [...labels.replace(/\([^)]*\)/g, '').matchAll(/`([a-z_]+)`/g)].map(([, label]) => label).sort() }]),
  );
}

describe('README metrics table', () => {
  it('lists every mailroom_ metric the apps register, with its type and labels, and no other', async () => {
    const modules = metricModules();
    expect(modules.length).toBeGreaterThan(5);
    for (const module of modules) require(module);
    // prom-client's metric objects keep their label names, which its types leave out.
    const metrics = metricsRegistry.getMetricsAsArray() as unknown as { name: string; labelNames?: string[]; get(): Promise<{ type: string }> }[];
    const registered = await Promise.all(
      metrics
        .filter((metric) => metric.name.startsWith('mailroom_'))
        .map(async (metric) => [metric.name, { type: (await metric.get()).type, labels: [...(metric.labelNames ?? [])].sort() }] as const),
    );
    expect(readmeMetrics()).toEqual(Object.fromEntries(registered));
  });
});
