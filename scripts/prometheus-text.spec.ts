import { parsePrometheusText } from './prometheus-text';

describe(parsePrometheusText.name, () => {
  const text = [
    '# HELP mailroom_x_total Things, by kind',
    '# TYPE mailroom_x_total counter',
    'mailroom_x_total{kind="a",app="keys"} 3',
    'mailroom_x_total{kind="b \\"quoted\\"",app="keys"} 4.5',
    '# TYPE mailroom_h_seconds histogram',
    'mailroom_h_seconds_bucket{le="+Inf",route="/v1/emails/:id"} 7',
    'mailroom_gauge 0',
  ].join('\n');

  it('reads names, labels, values, types and help', () => {
    const scrape = parsePrometheusText(text);
    expect(scrape.types.mailroom_x_total).toBe('counter');
    expect(scrape.help.mailroom_x_total).toBe('Things, by kind');
    expect(scrape.value('mailroom_x_total', { kind: 'a' })).toBe(3);
    expect(scrape.value('mailroom_x_total', { kind: 'b "quoted"' })).toBe(4.5);
    expect(scrape.value('mailroom_h_seconds_bucket', { le: '+Inf', route: '/v1/emails/:id' })).toBe(7);
    expect(scrape.value('mailroom_gauge')).toBe(0);
  });

  it('refuses to pick one value among several or none', () => {
    const scrape = parsePrometheusText(text);
    expect(() => scrape.value('mailroom_x_total')).toThrow('2 samples');
    expect(() => scrape.value('mailroom_missing')).toThrow('0 samples');
  });
});
