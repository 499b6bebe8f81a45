import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { LeasedWindow, type LeasedSource } from './window';

/** A queue of `backlog` items that each take `workMs`, recording every claim's limit and size. */
function queue(backlog: number, workMs: number) {
  let next = 0;
  const claims: { limit: number; size: number }[] = [];
  const done: number[] = [];
  const source: LeasedSource<number> = {
    claim: async (limit) => {
      const items = Array.from({ length: Math.min(limit, backlog - next) }, () => next++);
      claims.push({ limit, size: items.length });
      return items;
    },
    run: async (item) => {
      await sleep(workMs);
      done.push(item);
    },
    renew: async () => undefined,
    release: async () => undefined,
  };
  return { source, claims, done };
}

describe('LeasedWindow', () => {
  it('behind a backlog, claims again once a quarter of the window is free, not after the claim interval', async () => {
    const { source, claims, done } = queue(200, 5);
    const window = new LeasedWindow(source, { concurrency: 8, leaseMs: 10_000, pollMs: 5_000, stopTimeoutMs: 1_000, claimIntervalMs: 1_000, onError: () => undefined });
    const started = Date.now();
    window.start();
    // Spaced by the 1 s interval, 8 slots would take 25 s for 200 items.
    while (done.length < 200 && Date.now() - started < 10_000) {
      window.poke(); // commits poking all along must not turn the backlog into claims of one slot each
      await sleep(1);
    }
    await window.stop();
    expect(done).toHaveLength(200);
    expect(Date.now() - started).toBeLessThan(5_000);
    // Every claim while behind asked for at least a quarter of the window.
    const behind = claims.filter((c) => c.size > 0);
    expect(behind.every((c) => c.limit >= 2)).toBe(true);
    expect(behind.length).toBeLessThanOrEqual(200 / 2);
  });

  it('once caught up, spaces claims by the interval, so wake-ups close together share one', async () => {
    const { source, claims } = queue(0, 1);
    const window = new LeasedWindow(source, { concurrency: 8, leaseMs: 10_000, pollMs: 5_000, stopTimeoutMs: 1_000, claimIntervalMs: 200, onError: () => undefined });
    window.start();
    const until = Date.now() + 700;
    while (Date.now() < until) {
      window.poke();
      await sleep(5);
    }
    await window.stop();
    // 700 ms of pokes every 5 ms: a claim at once, then at most one per 200 ms.
    expect(claims.length).toBeGreaterThanOrEqual(2);
    expect(claims.length).toBeLessThanOrEqual(6);
  });
});
