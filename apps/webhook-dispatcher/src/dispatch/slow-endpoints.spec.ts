import { FORGET_SLOW_AFTER_MS, SlowEndpoints } from './slow-endpoints';

describe(SlowEndpoints.name, () => {
  const makeMarks = () => {
    const clock = { now: 1_000_000 };
    return { clock, marks: new SlowEndpoints(() => clock.now) };
  };

  it('says when an endpoint turns slow, not when a mark is only confirmed', () => {
    const { marks } = makeMarks();
    expect(marks.mark('wh_a')).toBe(true);
    expect(marks.mark('wh_a')).toBe(false);
    expect(marks.has('wh_a')).toBe(true);
    marks.clear('wh_a');
    expect(marks.has('wh_a')).toBe(false);
  });

  it('forgets a stale mark only once the endpoint holds nothing', () => {
    const { clock, marks } = makeMarks();
    marks.mark('wh_a');
    marks.mark('wh_b');
    clock.now += FORGET_SLOW_AFTER_MS + 1;
    marks.mark('wh_c');
    expect(marks.current({ wh_a: 1 })).toEqual(['wh_a', 'wh_c']);
  });
});
