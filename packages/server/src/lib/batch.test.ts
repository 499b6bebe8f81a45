import { describe, expect, it } from 'vitest';
import { batchCalls, onePer } from './batch';

/** A batch function that records the batches it was given and doubles each number, failing on negatives. */
function doubler() {
  const batches: number[][] = [];
  const call = batchCalls(async (items: readonly number[]) => {
    batches.push([...items]);
    if (items.some((n) => n < 0)) throw new Error(`negative in ${items.join(',')}`);
    return items.map((n) => n * 2);
  });
  return { call, batches };
}

describe('batchCalls', () => {
  it('runs the calls of one turn of the event loop as one batch and answers each in order', async () => {
    const { call, batches } = doubler();
    expect(await Promise.all([call(1), call(2), call(3)])).toEqual([2, 4, 6]);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('gathers calls made from separate callbacks of the same turn (as requests from several sockets are)', async () => {
    const { call, batches } = doubler();
    // Three callbacks queued for one phase of the loop (timers of 0 ms may straddle a millisecond and fire in two turns).
    const answers = await Promise.all([1, 2, 3].map((n) => new Promise<number>((resolve) => setImmediate(() => resolve(call(n))))));
    expect(answers).toEqual([2, 4, 6]);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('starts a new batch for calls made after the batch was sent', async () => {
    const { call, batches } = doubler();
    await call(1);
    await call(2);
    expect(batches).toEqual([[1], [2]]);
  });

  it('fails only the item that fails: the others of its batch are answered from runs of their own', async () => {
    const { call, batches } = doubler();
    const results = await Promise.allSettled([call(1), call(-1), call(3)]);
    expect(results[0]).toEqual({ status: 'fulfilled', value: 2 });
    expect(results[1]).toMatchObject({ status: 'rejected', reason: new Error('negative in -1') });
    expect(results[2]).toEqual({ status: 'fulfilled', value: 6 });
    expect(batches).toEqual([[1, -1, 3], [1], [-1], [3]]);
  });

  it('keeps a batch within its maximum size', async () => {
    const batches: number[] = [];
    const call = batchCalls(
      async (items: readonly number[]) => {
        batches.push(items.length);
        return items;
      },
      { maxBatchSize: 4 },
    );
    await Promise.all(Array.from({ length: 10 }, (_, i) => call(i)));
    expect(batches).toEqual([4, 4, 2]);
  });
});

describe('onePer', () => {
  it('makes one value per key and keeps it', () => {
    let made = 0;
    const of = onePer((key: { name: string }) => ({ key: key.name, n: ++made }));
    const a = { name: 'a' };
    const b = { name: 'b' };
    expect(of(a)).toBe(of(a));
    expect(of(b).n).toBe(2);
    expect(made).toBe(2);
  });
});
