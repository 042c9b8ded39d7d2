import { GroupCommitOptions, GroupCommitter } from './group-commit';

class SqlError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/** A commit that records its batches and can be held open, so tests see what runs at once. */
function makeCommitter(options: GroupCommitOptions & { failWhen?: (items: number[]) => Error | undefined } = {}) {
  const batches: number[][] = [];
  let open = 0;
  let mostOpen = 0;
  const gates: (() => void)[] = [];
  let holding = false;
  const commit = async (items: number[]) => {
    batches.push(items);
    open += 1;
    mostOpen = Math.max(mostOpen, open);
    if (holding) await new Promise<void>((release) => gates.push(release));
    await Promise.resolve();
    open -= 1;
    const failure = options.failWhen?.(items);
    if (failure) throw failure;
    return items.map((item) => item * 10);
  };
  const committer = new GroupCommitter<number, number>(commit, options);
  return {
    committer,
    batches,
    mostOpen: () => mostOpen,
    hold: () => (holding = true),
    releaseAll: () => {
      holding = false;
      gates.splice(0).forEach((release) => release());
    },
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe(GroupCommitter.name, () => {
  it('commits items submitted in the same turn in one batch, each caller getting its own result', async () => {
    const { committer, batches } = makeCommitter();
    const results = await Promise.all([1, 2, 3].map((item) => committer.submit(item)));
    expect(results).toEqual([10, 20, 30]);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('caps a batch at maxBatch items', async () => {
    const { committer, batches } = makeCommitter({ maxBatch: 2 });
    await Promise.all([1, 2, 3, 4, 5].map((item) => committer.submit(item)));
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('runs at most maxInFlight transactions and batches what arrives meanwhile', async () => {
    const { committer, batches, mostOpen, hold, releaseAll } = makeCommitter({ maxBatch: 1, maxInFlight: 2 });
    hold();
    const first = [1, 2, 3, 4].map((item) => committer.submit(item));
    await tick();
    expect(batches).toEqual([[1], [2]]);
    releaseAll();
    expect(await Promise.all(first)).toEqual([10, 20, 30, 40]);
    expect(mostOpen()).toBe(2);
  });

  it('commits each item alone after a batch rolled back, so one bad item fails only its own caller', async () => {
    const { committer, batches } = makeCommitter({
      failWhen: (items) => (items.includes(2) ? new SqlError('invalid byte sequence', '22021') : undefined),
    });
    const settled = await Promise.allSettled([1, 2, 3].map((item) => committer.submit(item)));
    expect(settled).toEqual([
      { status: 'fulfilled', value: 10 },
      { status: 'rejected', reason: expect.objectContaining({ code: '22021' }) },
      { status: 'fulfilled', value: 30 },
    ]);
    expect(batches).toEqual([[1, 2, 3], [1], [2], [3]]);
  });

  it('does not retry when the batch may have committed (no answer from the server)', async () => {
    const lost = new Error('Connection terminated unexpectedly');
    const { committer, batches } = makeCommitter({ failWhen: () => lost });
    const settled = await Promise.allSettled([1, 2].map((item) => committer.submit(item)));
    expect(settled).toEqual([
      { status: 'rejected', reason: lost },
      { status: 'rejected', reason: lost },
    ]);
    expect(batches).toEqual([[1, 2]]);
  });

  it('fails every caller when the commit returns the wrong number of results', async () => {
    const committer = new GroupCommitter<number, number>(async () => [1]);
    const settled = await Promise.allSettled([1, 2].map((item) => committer.submit(item)));
    expect(settled.map((result) => result.status)).toEqual(['rejected', 'rejected']);
  });
});
