import type * as V8 from 'node:v8';
import { describe, expect, it, vi } from 'vitest';

const setFlagsFromString = vi.fn();
vi.mock('node:v8', async (original) => ({ ...(await original<typeof V8>()), setFlagsFromString }));
const { boundHeapGrowth, HEAP_GROWING_PERCENT } = await import('../src/runtime');

describe('boundHeapGrowth (runtime.ts): the heap of serve and worker grows to twice its live size at most', () => {
  it("sets V8's heap growing factor when node was started without one", () => {
    setFlagsFromString.mockClear();
    boundHeapGrowth(['--enable-source-maps']);
    expect(HEAP_GROWING_PERCENT).toBe(100);
    expect(setFlagsFromString).toHaveBeenCalledExactlyOnceWith('--heap-growing-percent=100');
  });

  it("keeps the operator's own factor, in either spelling", () => {
    setFlagsFromString.mockClear();
    boundHeapGrowth(['--heap-growing-percent=300']);
    boundHeapGrowth(['--heap_growing_percent=50']);
    expect(setFlagsFromString).not.toHaveBeenCalled();
  });
});
