import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { retryDelayMs, type RetrySchedule } from './backoff';
import type { WorkerSignal } from './worker-signal';

/**
 * Wake-ups between processes, over PostgreSQL's LISTEN/NOTIFY. A process that enqueues work but runs
 * no workers (`colibri serve` with COLIBRI_WORKERS=off) announces each poke of its WorkerSignal;
 * every process that runs workers on PostgreSQL listens, so a job or a callback that an API process
 * enqueues starts at once in a `colibri worker` instead of at that worker's next poll (500 ms for jobs).
 * An announcement lost on the way costs only that poll: polling stays, and nothing depends on a
 * notification arriving. PGlite is held by one process, whose signal reaches its workers directly.
 */
export const WAKE_CHANNEL = 'colibri_work';

export interface AnnounceOptions {
  /** At most one announcement per this many milliseconds; pokes in between share the next one. */
  spacingMs?: number;
  onError: (error: unknown) => void;
}

/**
 * Announces the pokes of `signal` to the other processes: one NOTIFY at a time, at most one per
 * `spacingMs` (100 ms), so a busy API process sends at most ten a second however many jobs it enqueues.
 * Answers the function that stops announcing.
 * @example const stop = announceWakeups(pool, ctx.workerSignal, { onError: (e) => logger.warn({ err: e }) });
 */
export function announceWakeups(pool: pg.Pool, signal: WorkerSignal, options: AnnounceOptions): () => void {
  const spacingMs = options.spacingMs ?? 100;
  let pending = false;
  let running = false;
  let stopped = false;
  const run = async () => {
    running = true;
    while (pending && !stopped) {
      pending = false;
      const started = Date.now();
      await pool.query('select pg_notify($1, $2)', [WAKE_CHANNEL, '']).catch(options.onError);
      await sleep(Math.max(0, spacingMs - (Date.now() - started)));
    }
    running = false;
  };
  const unsubscribe = signal.subscribe(() => {
    pending = true;
    if (!running) void run();
  });
  return () => {
    stopped = true;
    unsubscribe();
  };
}

export interface ListenOptions {
  /** First wait before connecting again after a lost connection; it doubles up to `maxBackoffMs`. */
  backoffMs?: number;
  maxBackoffMs?: number;
  onError: (error: unknown) => void;
}

/**
 * Listens for announcements on a connection of its own and calls `wake` for each. A lost connection
 * (a restart, a failover, a terminated backend) is opened again with backoff, and `wake` is called once
 * it is back, since announcements may have been missed meanwhile.
 * @example const listener = listenForWakeups(config.databaseUrl, () => signal.poke(), { onError }); … await listener.stop();
 */
export function listenForWakeups(connectionString: string, wake: () => void, options: ListenOptions): { stop(): Promise<void>; readonly connected: boolean } {
  // The one backoff of background work (jobs/backoff.ts), without jitter: 250 ms doubling to 10 s.
  const schedule: RetrySchedule = { baseMs: options.backoffMs ?? 250, capMs: options.maxBackoffMs ?? 10_000, jitter: 0, windowMs: Number.POSITIVE_INFINITY };
  const stopping = new AbortController();
  let client: pg.Client | undefined;
  let connected = false;

  const connectOnce = async (): Promise<void> => {
    const next = new pg.Client({ connectionString, application_name: 'colibri-wakeups', keepAlive: true, keepAliveInitialDelayMillis: 10_000, connectionTimeoutMillis: 10_000 });
    const lost = new Promise<void>((resolve) => {
      next.on('error', (error) => {
        options.onError(error);
        resolve();
      });
      next.on('end', () => resolve());
    });
    next.on('notification', (message) => {
      if (message.channel === WAKE_CHANNEL) wake();
    });
    client = next;
    try {
      await next.connect();
      await next.query(`listen ${WAKE_CHANNEL}`);
      connected = true;
      wake();
      // Until the connection is lost, or stop() ends it.
      await lost;
    } finally {
      connected = false;
      client = undefined;
      await next.end().catch(() => undefined);
    }
  };

  const loop = (async () => {
    let failures = 0;
    while (!stopping.signal.aborted) {
      const started = Date.now();
      try {
        await connectOnce();
      } catch (error) {
        options.onError(error);
      }
      if (stopping.signal.aborted) break;
      // A connection that lasted a while starts the backoff afresh.
      failures = Date.now() - started > schedule.capMs ? 1 : failures + 1;
      await sleep(retryDelayMs(schedule, failures), undefined, { signal: stopping.signal }).catch(() => undefined);
    }
  })();

  return {
    get connected() {
      return connected;
    },
    async stop() {
      stopping.abort();
      await client?.end().catch(() => undefined);
      await loop;
    },
  };
}
