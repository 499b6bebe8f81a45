import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Where a `LeasedWindow` takes its work from: a table of rows that workers claim with a lease
 * (`locked_by`, `locked_until`) in one statement (`for update skip locked`).
 */
export interface LeasedSource<T> {
  /** Claims up to `limit` due items for this worker; each holds a lease until it is renewed or finished. */
  claim(limit: number): Promise<T[]>;
  /** Does one item's work and records its outcome. Errors are the source's to record; one that escapes is reported. */
  run(item: T): Promise<void>;
  /** Extends the leases of items still running (one statement for all of them). */
  renew(items: readonly T[]): Promise<void>;
  /** Ends the leases of items abandoned at a bounded stop, so another worker takes them at once. */
  release(items: readonly T[]): Promise<void>;
}

export interface WindowOptions {
  /** Items in flight at once: the window's bound. */
  readonly concurrency: number;
  /** Length of a lease; leases of running items are renewed every third of it. */
  readonly leaseMs: number;
  /** Idle poll interval; `poke()` wakes the window at once. */
  readonly pollMs: number;
  /** A stop waits this long for items in flight, then releases the leases of those still running. */
  readonly stopTimeoutMs: number;
  /** The shortest time between two claims: wake-ups within it share one claim statement (10 ms unless set). */
  readonly claimIntervalMs?: number;
  readonly onError: (error: unknown, context: string) => void;
}


/**
 * A bounded window of leased work, shared by the job worker (jobs/queue.ts) and the callback worker
 * (webhooks/delivery-worker.ts). It keeps at most `concurrency` items in flight and claims more as
 * slots free (once a quarter of the window is free, or at once when the queue had run dry), instead
 * of running a batch to its slowest member; a slow processor call holds its own slot, not the others'.
 * Leases are short and renewed while an item runs, so work held by a process that died is taken over
 * within one lease; a stop finishes what is in flight (bounded) and releases the rest.
 * @example
 * const window = new LeasedWindow(source, { concurrency: 1000, leaseMs: 10_000, pollMs: 500, stopTimeoutMs: 10_000, onError });
 * window.start(); … await window.stop();
 */
export class LeasedWindow<T> {
  private readonly inFlight = new Map<Promise<void>, T>();
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private poked = false;
  private claimedAt = 0;
  /** The last claim filled every free slot (or none was free): work is waiting behind the window. */
  private behind = false;
  /** Resolves the wait for a quarter of the window to free up (waitForSlots). */
  private slotsFreed: (() => void) | null = null;
  private renewTimer: NodeJS.Timeout | null = null;
  private stopping: Promise<void> | null = null;

  constructor(
    private readonly source: LeasedSource<T>,
    private readonly options: WindowOptions,
  ) {}

  /** Items in flight now (never more than `concurrency`). */
  get size(): number {
    return this.inFlight.size;
  }

  start(): void {
    if (this.stopping) throw new Error('a stopped window does not start again; make a new one');
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
    this.renewTimer = setInterval(() => void this.renew(), Math.max(10, Math.floor(this.options.leaseMs / 3)));
    this.renewTimer.unref();
  }

  /** Wakes the window now; a poke during a claim is kept for the next wait. */
  poke(): void {
    const wake = this.wake;
    this.wake = null;
    if (wake) wake();
    else this.poked = true;
  }

  /** Stops claiming, waits up to `stopTimeoutMs` for the items in flight, and releases the leases of the rest. */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private async shutdown(): Promise<void> {
    this.running = false;
    this.poke();
    this.slotsFreed?.();
    await this.loop;
    const finished = Promise.all(this.inFlight.keys()).then(() => true);
    const timedOut = sleep(this.options.stopTimeoutMs, false, { ref: false });
    if (!(await Promise.race([finished, timedOut]))) {
      const left = [...this.inFlight.values()];
      if (left.length > 0) await this.source.release(left).catch((error: unknown) => this.options.onError(error, 'release'));
    }
    if (this.renewTimer) clearInterval(this.renewTimer);
  }

  private async run(): Promise<void> {
    while (this.running) {
      if (this.behind) {
        // Behind a backlog, the next claim comes once a quarter of the window is free, whatever wakes
        // the window meanwhile: it is a large claim then. Spaced by the interval instead, claims would
        // cap throughput at a window per interval (128 callbacks per 100 ms: 1,280 a second, however
        // fast the receivers answer); made at every wake-up, they would cost a statement per freed slot.
        await this.waitForSlots();
        if (!this.running) break;
      } else {
        // Wake-ups within the interval share one claim.
        const sinceLastClaim = Date.now() - this.claimedAt;
        const interval = this.options.claimIntervalMs ?? 10;
        if (sinceLastClaim < interval) await sleep(interval - sinceLastClaim);
      }
      const free = this.options.concurrency - this.inFlight.size;
      let claimed: T[] = [];
      if (free > 0) {
        this.claimedAt = Date.now();
        try {
          claimed = await this.source.claim(free);
        } catch (error) {
          // The database may be gone for a while (a restart, a failover): wait and claim again.
          this.options.onError(error, 'claim');
          this.behind = false;
          await sleep(1000);
          continue;
        }
        for (const item of claimed) this.begin(item);
      }
      if (!this.running) break;
      // A full claim means more may be due (see above). A short one means the queue ran dry: wait for a
      // poke, or for the next poll to find retries that have come due.
      this.behind = claimed.length === free;
      if (!this.behind) await this.idle();
    }
  }

  private idle(): Promise<void> {
    if (this.poked) {
      this.poked = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.poke(), this.options.pollMs);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** Items that must finish before a claim behind a backlog: a quarter of the window. */
  private get quarter(): number {
    return Math.max(1, Math.floor(this.options.concurrency / 4));
  }

  /** Waits until a quarter of the window is free (or the window stops). */
  private waitForSlots(): Promise<void> {
    if (!this.running || this.options.concurrency - this.inFlight.size >= this.quarter) return Promise.resolve();
    return new Promise<void>((resolve) => (this.slotsFreed = resolve));
  }

  private begin(item: T): void {
    const work: Promise<void> = this.source
      .run(item)
      .catch((error: unknown) => this.options.onError(error, 'run'))
      .finally(() => {
        this.inFlight.delete(work);
        const slotsFreed = this.slotsFreed;
        if (slotsFreed && this.options.concurrency - this.inFlight.size >= this.quarter) {
          this.slotsFreed = null;
          slotsFreed();
        }
      });
    this.inFlight.set(work, item);
  }

  private async renew(): Promise<void> {
    const items = [...this.inFlight.values()];
    if (items.length === 0) return;
    await this.source.renew(items).catch((error: unknown) => this.options.onError(error, 'renew'));
  }
}
