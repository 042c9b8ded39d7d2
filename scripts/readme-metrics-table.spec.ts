import { readmeMetrics, registeredMetrics } from './metric-catalogue';

describe('README metrics table', () => {
  it('lists every mailroom_ metric the apps register, with its type and labels, and no other', async () => {
    const documented = Object.fromEntries(Object.entries(readmeMetrics()).map(([name, { type, labels }]) => [name, { type, labels }]));
    expect(documented).toEqual(await registeredMetrics());
  });
});
