import { ApiClient, ProcessStack, Stack, startProcessStack, startStack } from '@mailroom/testing';

const APPS = ['keys', 'domains', 'emails', 'webhook-dispatcher', 'gateway'] as const;

interface Family {
  type: string;
  help: string;
}

interface Exposition {
  families: Map<string, Family>;
  /** `name{label="value",…}` with labels sorted → value. */
  series: Map<string, number>;
  problems: string[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
// A label value escapes only backslash, double quote and newline (the text format, version 0.0.4).
const LABEL_PAIR = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|(?=\}))/;
const VALUE = /^(?:[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[+-]Inf|NaN)$/;
/** An id in a request path: it must reach no label. */
const UNKNOWN_KEY_ID = 'key_01J0NOTAKEY0000000000000000';
const SUFFIXES: Record<string, string[]> = { counter: [''], gauge: [''], histogram: ['_bucket', '_sum', '_count'], summary: ['', '_sum', '_count'], untyped: [''] };

/** The family a sample belongs to: its name, or its name without the histogram/summary suffix. */
function familyOf(name: string, families: Map<string, Family>): string | undefined {
  if (families.has(name)) return name;
  const base = name.replace(/_(bucket|sum|count)$/, '');
  return families.has(base) && SUFFIXES[families.get(base)!.type]?.includes(name.slice(base.length)) ? base : undefined;
}

/** Reads the text exposition format strictly, noting every line a Prometheus server would refuse or misread. */
function readExposition(text: string): Exposition {
  const families = new Map<string, Family>();
  const series = new Map<string, number>();
  const problems: string[] = [];
  const seenSamplesOf = new Set<string>();
  if (!text.endsWith('\n')) problems.push('the exposition does not end with a newline');
  for (const line of text.split('\n').filter(Boolean)) {
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (meta) {
      const [, kind, name, rest] = meta;
      if (!METRIC_NAME.test(name)) problems.push(`bad metric name: ${line}`);
      if (seenSamplesOf.has(name)) problems.push(`${kind} after samples of ${name}`);
      const family = families.get(name) ?? { type: '', help: '' };
      if (kind === 'TYPE') {
        if (family.type) problems.push(`second TYPE for ${name}`);
        if (!(rest in SUFFIXES)) problems.push(`unknown type: ${line}`);
        family.type = rest;
      } else {
        if (family.help) problems.push(`second HELP for ${name}`);
        family.help = rest || '(empty)';
      }
      families.set(name, family);
      continue;
    }
    if (line.startsWith('#')) continue;
    const head = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{)?/.exec(line);
    if (!head) {
      problems.push(`not a sample: ${line}`);
      continue;
    }
    const name = head[1];
    let rest = line.slice(head[0].length);
    const labels: string[] = [];
    if (head[2]) {
      while (!rest.startsWith('}')) {
        const pair = LABEL_PAIR.exec(rest);
        if (!pair) {
          problems.push(`bad labels: ${line}`);
          break;
        }
        labels.push(`${pair[1]}="${pair[2]}"`);
        rest = rest.slice(pair[0].length);
      }
      rest = rest.slice(1);
    }
    const [, value] = /^ (\S+)(?: -?\d+)?$/.exec(rest) ?? [];
    if (value === undefined || !VALUE.test(value)) problems.push(`bad value: ${line}`);
    const family = familyOf(name, families);
    if (!family || !families.get(family)!.type || !families.get(family)!.help) problems.push(`sample without its HELP and TYPE: ${line}`);
    if (family) seenSamplesOf.add(family);
    const names = labels.map((pair) => pair.slice(0, pair.indexOf('=')));
    if (new Set(names).size !== names.length) problems.push(`repeated label: ${line}`);
    const key = `${name}{${[...labels].sort().join(',')}}`;
    if (series.has(key)) problems.push(`duplicate series: ${key}`);
    series.set(key, Number(value));
  }
  return { families, series, problems };
}

/** The labels of a series key, as a map. */
function labelsOf(key: string): Record<string, string> {
  const inner = key.slice(key.indexOf('{') + 1, -1);
  return Object.fromEntries([...inner.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((match) => [match[1], match[2]]));
}

/**
 * GET /metrics of every app, each its own process as in production, read as
 * Prometheus reads it: every family announced once (HELP, TYPE) before its
 * samples, label values escaped, no series twice, every series carrying its
 * app, histograms cumulative, and counters that only grow between scrapes.
 */
describe('the Prometheus exposition of every app', () => {
  let stack: Stack;
  let processes: ProcessStack;
  let api: ApiClient;

  beforeAll(async () => {
    stack = await startStack({ apps: [] });
    processes = await startProcessStack({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: stack.databaseUrl, NATS_URL: stack.nats.url, RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '3' });
    api = new ApiClient(processes.baseUrl, stack.rootKey);
  }, 180000);

  afterAll(async () => {
    await processes?.stop();
    await stack?.stop();
  });

  const scrape = async (app: (typeof APPS)[number]) => readExposition(await (await fetch(`${processes.opsUrl(app)}/metrics`)).text());

  /** Traffic that fills the gateway's labelled series: routes, statuses (a 404, a 429), NATS subjects. */
  async function traffic(): Promise<void> {
    for (let request = 0; request < 5; request += 1) await api.get('/v1/api-keys');
    await api.get(`/v1/api-keys/${UNKNOWN_KEY_ID}`);
    await api.get('/no/such/"route\\', { key: null });
    await api.get('/health', { key: null });
  }

  it('reads strictly: the checks below would see a broken exposition', () => {
    const broken = readExposition(
      ['# HELP a_total A.', '# TYPE a_total counter', 'a_total{x="1"} 1', 'a_total{x="1"} 2', 'b 3', 'a_total{x="un"escaped"} 1', '# HELP a_total again'].join('\n'),
    );
    expect(broken.problems).toEqual([
      'the exposition does not end with a newline',
      'duplicate series: a_total{x="1"}',
      'sample without its HELP and TYPE: b 3',
      'bad labels: a_total{x="un"escaped"} 1',
      'bad value: a_total{x="un"escaped"} 1',
      'HELP after samples of a_total',
      'second HELP for a_total',
    ]);
  });

  it('is valid text format on every app, with no series twice and the app on each', async () => {
    await traffic();
    for (const app of APPS) {
      const { series, families, problems } = await scrape(app);
      expect({ app, problems }).toEqual({ app, problems: [] });
      expect({ app, families: families.size > 10, mailroom: [...families.keys()].some((name) => name.startsWith('mailroom_')) }).toEqual({ app, families: true, mailroom: true });
      const withoutApp = [...series.keys()].filter((key) => labelsOf(key).app !== app);
      expect({ app, withoutApp }).toEqual({ app, withoutApp: [] });
    }
    const gateway = await scrape('gateway');
    // Paths the client chose (an id, a path no route has) would make a series each: the label is the route pattern, or unmatched.
    const routes = new Set([...gateway.series.keys()].filter((key) => key.startsWith('mailroom_http_request_duration_seconds_count')).map((key) => labelsOf(key).route));
    expect(routes).toContain('/v1/api-keys/:id');
    expect(routes).toContain('unmatched');
    expect([...routes].filter((route) => route.includes(UNKNOWN_KEY_ID) || route.includes('no/such'))).toEqual([]);
    expect([...gateway.series.keys()].filter((key) => key.startsWith('mailroom_rate_limited_requests_total'))).toEqual([
      'mailroom_rate_limited_requests_total{app="gateway",limit="api_key"}',
    ]);
  });

  it('keeps histograms cumulative and counters growing between scrapes', async () => {
    const before = new Map<string, Exposition>();
    for (const app of APPS) before.set(app, await scrape(app));
    await traffic();
    for (const app of APPS) {
      const after = await scrape(app);
      // Counters, and every part of a histogram (the buckets, the count, the sum of non-negative durations), only grow.
      const counting = (name: string) => {
        const family = familyOf(name, after.families);
        return family !== undefined && ['counter', 'histogram'].includes(after.families.get(family)!.type);
      };
      const shrunk = [...before.get(app)!.series].filter(([key, value]) => counting(key.slice(0, key.indexOf('{'))) && (after.series.get(key) ?? -Infinity) < value);
      expect({ app, shrunk }).toEqual({ app, shrunk: [] });
      // Each histogram series: bucket counts never fall as le grows, and the +Inf bucket is the count.
      const notCumulative: string[] = [];
      for (const [key, count] of after.series) {
        if (!/_count\{/.test(key)) continue;
        const base = key.slice(0, key.indexOf('_count{'));
        if (after.families.get(base)?.type !== 'histogram') continue;
        const own = labelsOf(key);
        const buckets = [...after.series]
          .filter(([other]) => other.startsWith(`${base}_bucket{`))
          .map(([other, value]) => ({ labels: labelsOf(other), value }))
          .filter(({ labels }) => Object.entries(own).every(([name, value]) => labels[name] === value))
          .sort((a, b) => Number(a.labels.le.replace('+Inf', 'Infinity')) - Number(b.labels.le.replace('+Inf', 'Infinity')));
        if (!buckets.length || buckets.at(-1)!.labels.le !== '+Inf' || buckets.at(-1)!.value !== count) notCumulative.push(`${key}: +Inf bucket is not the count`);
        buckets.forEach((bucket, index) => index && bucket.value < buckets[index - 1].value && notCumulative.push(`${key}: le=${bucket.labels.le} below the bucket before`));
      }
      expect({ app, notCumulative }).toEqual({ app, notCumulative: [] });
    }
  });
});
