import { freePort, randomStablePort, stablePortsOf } from './free-port';

describe(randomStablePort.name, () => {
  it('never hands out a port twice in one process: each is released at once and bound only later, maybe beside the next', () => {
    // 1,500 draws from the 3,000 ports of a worker (of 12,000 before): draws that may repeat would all but surely repeat.
    const ports = Array.from({ length: 1_500 }, () => randomStablePort());
    expect(new Set(ports).size).toBe(ports.length);
  });
});

describe(freePort.name, () => {
  it('hands out distinct ports however often it is asked', async () => {
    const ports: number[] = [];
    for (let index = 0; index < 500; index += 1) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
  });
});

describe(stablePortsOf.name, () => {
  it('gives each Jest worker ports of its own, below the ephemeral range, so two workers never pick the same', () => {
    const [first, second] = [stablePortsOf('1'), stablePortsOf('2')];
    expect(first.to <= second.from || second.to <= first.from).toBe(true);
    for (const range of [first, second, stablePortsOf(undefined)]) {
      expect(range.from).toBeGreaterThanOrEqual(20_000);
      expect(range.to).toBeLessThanOrEqual(32_000);
      expect(range.to - range.from).toBeGreaterThanOrEqual(2_500);
    }
  });
});
