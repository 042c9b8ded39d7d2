/** One sample line of the Prometheus text exposition format: `name{label="value",…} 12.5`. */
export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Scrape {
  samples: MetricSample[];
  /** `# TYPE` of each metric family. */
  types: Record<string, string>;
  /** `# HELP` of each metric family. */
  help: Record<string, string>;
  /** Samples of `name` whose labels include every label given. */
  find(name: string, labels?: Record<string, string>): MetricSample[];
  /** The value of the one sample of `name` with these labels; throws when there is none or several. */
  value(name: string, labels?: Record<string, string>): number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

function parseValue(text: string): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  return Number(text);
}

/** Parses /metrics output, so tests and benches read values rather than match substrings. */
export function parsePrometheusText(text: string): Scrape {
  const samples: MetricSample[] = [];
  const types: Record<string, string> = {};
  const help: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed) continue;
    const meta = /^# (HELP|TYPE) (\S+) (.*)$/.exec(trimmed);
    if (meta) {
      (meta[1] === 'HELP' ? help : types)[meta[2]] = meta[3];
      continue;
    }
    if (trimmed.startsWith('#')) continue;
    const match = SAMPLE.exec(trimmed);
    if (!match) throw new Error(`not a sample line: ${trimmed}`);
    const labels: Record<string, string> = {};
    for (const label of (match[2] ?? '').matchAll(LABEL)) labels[label[1]] = label[2].replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: match[1], labels, value: parseValue(match[3]) });
  }
  const find = (name: string, labels: Record<string, string> = {}) =>
    samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
  return {
    samples,
    types,
    help,
    find,
    value(name, labels = {}) {
      const found = find(name, labels);
      if (found.length !== 1) throw new Error(`${found.length} samples of ${name}${JSON.stringify(labels)}`);
      return found[0].value;
    },
  };
}

/** GETs `${opsUrl}/metrics` and parses it. */
export async function scrapeMetrics(opsUrl: string): Promise<Scrape> {
  const response = await fetch(`${opsUrl}/metrics`);
  if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}`);
  return parsePrometheusText(await response.text());
}

/** The sum over every label set of a prom-client metric in this process (an in-process stack's counters). */
export async function metricTotal(metric: { get(): Promise<{ values: Array<{ value: number }> }> }): Promise<number> {
  return (await metric.get()).values.reduce((sum, sample) => sum + sample.value, 0);
}
