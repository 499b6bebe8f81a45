import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, postgresPool, type DatabaseHandle } from '../src/db/database';
import { enqueue, JobWorker } from '../src/jobs/queue';
import { announceWakeups, listenForWakeups } from '../src/jobs/wakeups';
import { WorkerSignal } from '../src/jobs/worker-signal';
import { createTestDatabase, ENGINES, type TestDatabase } from './harness';
import { adminQuery } from './postgres-admin';

/**
 * Wake-ups between processes (jobs/wakeups.ts), on PostgreSQL: the worker side and the API side each
 * have their own handle, as two processes would, and the worker polls only once a minute, so a job
 * that runs within seconds was started by an announcement.
 */
describe.runIf(ENGINES.includes('postgres'))('wake-ups between processes over LISTEN/NOTIFY [postgres]', () => {
  const POLL_MS = 60_000;
  let database: TestDatabase;
  let api: DatabaseHandle;
  let worker: JobWorker;
  let listener: ReturnType<typeof listenForWakeups>;
  const ran = new Map<string, number>();
  const apiSignal = new WorkerSignal();
  let stopAnnouncing: (() => void) | undefined;
  const errors: unknown[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    api = await openDatabase({ engine: 'postgres', url: database.url!, poolSize: 2 });
    worker = new JobWorker(database.handle.db, new Map([['wake-test', async (job) => void ran.set((job.payload as { name: string }).name, Date.now())]]), { pollMs: POLL_MS });
    worker.start();
    listener = listenForWakeups(database.url!, () => worker.poke(), { backoffMs: 100, onError: (error) => errors.push(error) });
    const deadline = Date.now() + 10_000;
    while (!listener.connected && Date.now() < deadline) await sleep(20);
    // The worker's first claims (at start, and the one the listener's connection made) are behind it.
    await sleep(500);
  });
  afterAll(async () => {
    stopAnnouncing?.();
    await listener?.stop();
    await worker?.stop();
    await api?.close();
    await database?.drop();
  });

  async function enqueueFromApi(name: string): Promise<number> {
    await enqueue(api.db, 'wake-test', { name });
    apiSignal.poke();
    return Date.now();
  }

  it('without an announcement, the worker waits for its poll', async () => {
    await enqueueFromApi('unannounced');
    await sleep(2_000);
    expect(ran.has('unannounced')).toBe(false);
    // The announcement that follows starts it, and the one below.
    stopAnnouncing = announceWakeups(postgresPool(api.db)!, apiSignal, { onError: (error) => errors.push(error) });
    apiSignal.poke();
    await expect.poll(() => ran.has('unannounced'), { timeout: 5_000 }).toBe(true);
  });

  it('a job enqueued by a process without workers starts at once in the worker of another', async () => {
    const enqueuedAt = await enqueueFromApi('announced');
    await expect.poll(() => ran.get('announced'), { timeout: 5_000 }).toBeDefined();
    expect(ran.get('announced')! - enqueuedAt).toBeLessThan(5_000);
  });

  it("listens again after its connection's backend is terminated, and wakes the worker when back", async () => {
    const terminated = await adminQuery(
      `select pg_terminate_backend(pid) as done from pg_stat_activity where datname = $1 and application_name = 'colibri-wakeups'`,
      [new URL(database.url!).pathname.slice(1)],
    );
    expect(terminated).toEqual([{ done: true }]);
    await expect.poll(() => listener.connected).toBe(false);
    await expect.poll(() => listener.connected).toBe(true);
    expect(errors.length).toBeGreaterThan(0);
    const enqueuedAt = await enqueueFromApi('after the fault');
    await expect.poll(() => ran.get('after the fault'), { timeout: 5_000 }).toBeDefined();
    expect(ran.get('after the fault')! - enqueuedAt).toBeLessThan(5_000);
  });

  it('announces a burst of pokes as a few notifications, not one each', async () => {
    const signal = new WorkerSignal();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    let received = 0;
    client.on('notification', () => received++);
    await client.query('listen colibri_work');
    const stop = announceWakeups(postgresPool(api.db)!, signal, { spacingMs: 50, onError: (error) => errors.push(error) });
    try {
      const started = Date.now();
      while (Date.now() - started < 500) {
        signal.poke();
        await sleep(1);
      }
      await sleep(200);
      // 500 ms of pokes every millisecond, one announcement per 50 ms at most: about 10 (the API
      // side's own announcer above adds none, since nothing pokes its signal here).
      expect(received).toBeGreaterThanOrEqual(2);
      expect(received).toBeLessThanOrEqual(14);
    } finally {
      stop();
      await client.end();
    }
  });
});
