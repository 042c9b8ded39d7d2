import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { readmeMetrics, registeredMetrics } from '../metric-catalogue';
import { ofKind, spec } from './test/k8s-queries';
import { renderOverlayWithComponents } from './test/render-kustomize';

const K8S = join(__dirname, '..', '..', 'k8s');

interface RuleGroups {
  groups: { name: string; rules: { alert: string; expr: string; labels?: Record<string, string>; annotations?: Record<string, string> }[] }[];
}

/** The alerts component as an operator adds it to the production overlay. */
function renderedRule() {
  const objects = renderOverlayWithComponents(join(K8S, 'overlays', 'production'), [join(K8S, 'components', 'alerts')]);
  const [rule] = ofKind(objects, 'PrometheusRule');
  return rule;
}

function promtool(args: string[], cwd: string) {
  const run = spawnSync('promtool', args, { cwd, encoding: 'utf8' });
  if (run.error) throw new Error(`promtool (Debian package prometheus) could not run: ${run.error.message}`);
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** Each selector of a metric in a PromQL expression, with its label matchers: name, operator and value. */
function selectors(expr: string): { metric: string; matchers: { label: string; operator: string; value: string }[] }[] {
  return [...expr.matchAll(/\b([a-z_]+)\{([^}]*)\}|\b(mailroom_[a-z_]+)\b(?!\{)/g)].map(([, metric, body, bare]) => ({
    metric: metric ?? bare,
    matchers: [...(body ?? '').matchAll(/([a-z_]+)\s*(=~|!~|!=|=)\s*"([^"]*)"/g)].map(([, label, operator, value]) => ({ label, operator, value })),
  }));
}

/** A histogram's series carry its name with _bucket, _count or _sum. */
const metricOf = (series: string, known: Record<string, unknown>) => (known[series] ? series : series.replace(/_(bucket|count|sum)$/, ''));

/** Labels every series has besides the metric's own: the app the process runs, and what the scrape adds. */
const SERIES_LABELS = ['app', 'namespace', 'le'];

describe('the alerting rules of k8s/components/alerts', () => {
  const rule = renderedRule();
  const groups = spec<RuleGroups>(rule);
  const rules = groups.groups.flatMap((group) => group.rules);

  it('render into the overlay as one PrometheusRule in its namespace', () => {
    expect(rule).toMatchObject({ apiVersion: 'monitoring.coreos.com/v1', kind: 'PrometheusRule', metadata: { namespace: 'mailroom' } });
    expect(rules.length).toBeGreaterThanOrEqual(10);
    for (const { alert, labels, annotations } of rules) {
      expect({ alert, severity: labels?.severity, summary: typeof annotations?.summary }).toEqual({ alert, severity: expect.stringMatching(/^(critical|warning)$/), summary: 'string' });
    }
  });

  it('are valid Prometheus rules, and fire, and stay quiet, as their promtool unit tests say', () => {
    const directory = mkdtempSync(join(tmpdir(), 'mailroom-alerts-'));
    try {
      // The rule's spec is a Prometheus rule file as it stands (what k8s/README.md tells those without the Operator).
      writeFileSync(join(directory, 'rules.yml'), stringify(groups));
      copyFileSync(join(__dirname, 'test', 'alert-rules.test.yml'), join(directory, 'alert-rules.test.yml'));
      const checked = promtool(['check', 'rules', 'rules.yml'], directory);
      expect({ status: checked.status, output: checked.output }).toEqual({ status: 0, output: expect.stringContaining(`${rules.length} rules found`) });
      const tested = promtool(['test', 'rules', 'alert-rules.test.yml'], directory);
      expect({ status: tested.status, output: tested.output }).toEqual({ status: 0, output: expect.stringContaining('SUCCESS') });
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('read only metrics the apps export, by labels and values they have', async () => {
    const registered = await registeredMetrics();
    const documented = readmeMetrics();
    const problems: string[] = [];
    for (const { alert, expr } of rules) {
      const labelsRead = new Set(SERIES_LABELS);
      for (const { metric: series, matchers } of selectors(expr)) {
        if (series === 'process_start_time_seconds') continue; // prom-client's default, in every app
        const metric = metricOf(series, registered);
        if (!registered[metric]) {
          problems.push(`${alert}: ${series} is no metric of Mailroom`);
          continue;
        }
        for (const label of registered[metric].labels) labelsRead.add(label);
        for (const { label, operator, value } of matchers) {
          if (!registered[metric].labels.includes(label) && !SERIES_LABELS.includes(label)) problems.push(`${alert}: ${metric} has no label ${label}`);
          const listed = documented[metric]?.values[label];
          const named = operator === '=' || operator === '!=' ? [value] : value.split('|').filter((part) => /^[a-z_-]+$/.test(part));
          for (const one of named) if (listed && !listed.includes(one)) problems.push(`${alert}: ${metric}{${label}} never takes the value ${one}`);
        }
      }
      for (const [, grouping] of expr.matchAll(/\bby \(([^)]*)\)/g)) {
        for (const label of grouping.split(',').map((name) => name.trim())) if (!labelsRead.has(label)) problems.push(`${alert}: groups by ${label}, which no series it reads has`);
      }
    }
    expect(problems).toEqual([]);
  });
});
