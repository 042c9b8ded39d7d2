import { LoopTurnQueue } from './loop-turn-queue';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe(LoopTurnQueue.name, () => {
  it('runs the sends of one turn together after it, in order, and not before', async () => {
    const queue = new LoopTurnQueue();
    const ran: number[] = [];
    queue.push(() => ran.push(1));
    queue.push(() => ran.push(2));
    expect(ran).toEqual([]);
    await nextTurn();
    expect(ran).toEqual([1, 2]);
    queue.push(() => ran.push(3));
    await nextTurn();
    expect(ran).toEqual([1, 2, 3]);
  });

  it('drops what was queued when cleared', async () => {
    const queue = new LoopTurnQueue();
    const ran: number[] = [];
    queue.push(() => ran.push(1));
    queue.clear();
    await nextTurn();
    expect(ran).toEqual([]);
  });
});
