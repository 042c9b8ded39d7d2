import { dkimSelectorFor, dkimTargetLabel, parseDkimTargetLabel } from './dns-records';

describe(dkimTargetLabel.name, () => {
  it('is 35 characters, the room libs/config leaves under DKIM_ZONE (asDkimZone), and reads back', () => {
    const domain = { dkimSelector: dkimSelectorFor(new Date('2026-11-27T00:00:00Z')), id: 'dom_01JDX4Q2T9ZK6M8N3P5R7S9V1W' };
    const label = dkimTargetLabel(domain);
    expect(label).toHaveLength(35);
    expect(parseDkimTargetLabel(label)).toEqual(domain);
  });
});
