import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Agent } from 'undici';
import type { AppContext } from '../context';
import { DEFAULT_RETRY_SCHEDULE, type RetrySchedule } from '../jobs/backoff';
import { LeasedWindow } from '../jobs/window';
import { analyseTables } from '../db/planner-statistics';
import { claimDeliveries, releaseDeadLeases, setDeliveryLeases, type ClaimedDelivery } from './claim';
import { deliver, type DeliverDeps } from './deliver';
import { callbackGuardFor } from './outbound-guard';
import { createCallbackAgent } from './post-callback';
import { recordAttempts, type AttemptResult } from './record';

export interface DeliveryWorkerOptions {
  /** Idle poll interval; `poke()` wakes the worker at once. */
  pollMs?: number;
  /** The least time between two claims (COLIBRI_CLAIM_INTERVAL_MS, as for jobs): under load, each claim then takes the callbacks of many commits. */
  claimIntervalMs?: number;
  onError?: (error: unknown, context: string) => void;
}

/** Results written per statement at most. */
const MAX_RECORD_BATCH = 500;
/**
 * How long a result waits for others to share its statement. Slots are freed when the receiver
 * answers, not when the result is written, so the wait costs no throughput; it only holds the
 * delivery's lease a few milliseconds longer, and it saves one statement per callback when callbacks
 * trickle in (on PGlite, whose one connection every statement holds, that is most of the cost).
 */
const RECORD_LINGER_MS = 5;
/**
 * How much longer than an attempt's timeout a lease lasts, for recording its result: 5 s, or the
 * timeout itself when that is shorter (tests run with short timeouts and should not wait 5 s for a
 * dead worker's lease).
 */
const LEASE_MARGIN_MS = 5_000;
/** On PGlite: statistics are refreshed after this many claims, at most once per interval. */
const ANALYZE_AFTER_CLAIMS = 1_000;
const ANALYZE_INTERVAL_MS = 10_000;

/** The workers running in this process; on PGlite, every other lease is a dead process's. */
const LIVE_WORKERS = new Set<string>();

/**
 * The callback worker of one process. It keeps up to `concurrency` attempts in flight in the same
 * bounded, leased window as the job worker (jobs/window.ts): it claims as many due deliveries as it has
 * free slots (claim.ts), makes each attempt (deliver.ts), and records finished attempts together in one
 * statement per round (record.ts), so a busy worker spends a handful of statements on hundreds of
 * callbacks. A slot is freed when the receiver has answered; the delivery stays leased until its result
 * is written, so no other worker takes it meanwhile.
 *
 * Callbacks have a window of their own beside the job worker's (background.ts): an attempt may
 * take 15 seconds, and a slow merchant must not hold the slots of payment processing.
 * @example
 * const worker = new DeliveryWorker(ctx, { pollMs: 250 });
 * worker.start();
 * await worker.stop();
 */
export class DeliveryWorker {
  readonly id = `deliveries-${randomUUID()}`;
  private readonly deps: DeliverDeps;
  private readonly agent: Agent;
  private readonly concurrency: number;
  private readonly leaseMs: number;
  private readonly window: LeasedWindow<ClaimedDelivery>;
  private pending: { result: AttemptResult; done: () => void }[] = [];
  private claimsSinceAnalyze = 0;
  private analyzedAt = 0;
  private releasedDead = false;
  private flushing: Promise<void> | null = null;
  private stopping: Promise<void> | null = null;

  constructor(
    private readonly ctx: AppContext,
    private readonly options: DeliveryWorkerOptions = {},
  ) {
    const settings = ctx.config.callbacks;
    const guard = callbackGuardFor(ctx.config);
    this.agent = createCallbackAgent(guard, settings.timeoutMs);
    const schedule: RetrySchedule = {
      ...DEFAULT_RETRY_SCHEDULE,
      baseMs: settings.retryBaseMs,
      capMs: Math.max(settings.retryBaseMs, DEFAULT_RETRY_SCHEDULE.capMs),
      windowMs: settings.retryWindowMs,
    };
    this.deps = { ctx, agent: this.agent, guard, schedule, timeoutMs: settings.timeoutMs, userAgent: `Colibri-Webhooks/${ctx.version}`, adopting: new Map() };
    this.concurrency = settings.concurrency;
    this.leaseMs = settings.timeoutMs + Math.min(LEASE_MARGIN_MS, settings.timeoutMs);
    const onError = (error: unknown, context: string) => this.options.onError?.(error, context);
    this.window = new LeasedWindow<ClaimedDelivery>(
      {
        claim: (limit) => this.claim(limit),
        run: (delivery) => this.attempt(delivery),
        renew: (deliveries) => setDeliveryLeases(ctx.db, this.id, deliveries, this.leaseMs),
        release: (deliveries) => setDeliveryLeases(ctx.db, this.id, deliveries, null),
      },
      // A stop lets attempts finish within their own timeout.
      {
        concurrency: this.concurrency,
        leaseMs: this.leaseMs,
        pollMs: options.pollMs ?? 250,
        claimIntervalMs: options.claimIntervalMs,
        stopTimeoutMs: settings.timeoutMs + 1000,
        onError,
      },
    );
  }

  start(): void {
    if (this.stopping) throw new Error('a stopped DeliveryWorker does not start again; make a new one');
    LIVE_WORKERS.add(this.id);
    this.window.start();
  }

  /**
   * Stops claiming, lets the attempts in flight finish (each within its timeout), records them and
   * closes the connections. Calling it again waits for the same stop.
   */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private async shutdown(): Promise<void> {
    await this.window.stop();
    while (this.flushing) await this.flushing;
    LIVE_WORKERS.delete(this.id);
    await this.agent.close();
  }

  /**
   * Wakes the worker now (after a commit that recorded events). A poke that comes while the worker
   * is busy claiming is kept for its next wait, so an event committed during a claim is not left
   * for the next poll.
   */
  poke(): void {
    this.window.poke();
  }

  private async claim(limit: number): Promise<ClaimedDelivery[]> {
    // PGlite is held by one process at a time, so a lease that no worker of this process holds is a
    // dead process's.
    if (this.ctx.engine === 'pglite' && !this.releasedDead) {
      this.releasedDead = true;
      await releaseDeadLeases(this.ctx.db, [...LIVE_WORKERS]);
      this.claimsSinceAnalyze = ANALYZE_AFTER_CLAIMS;
    }
    await this.keepStatistics();
    const claimed = await claimDeliveries(this.ctx.db, this.id, limit, this.leaseMs);
    this.claimsSinceAnalyze += claimed.length;
    return claimed;
  }

  /**
   * PGlite has no autovacuum: analyse the delivery tables as it would, once enough has changed. Their
   * size hardly grows while deliveries turn from PENDING to DELIVERED, which the planner must see: without
   * it a claim sorts every due delivery to take the first few (33 ms instead of under 1 ms with a backlog
   * of 20,000). Growth alone is covered for every table by db/planner-statistics.ts.
   */
  private async keepStatistics(): Promise<void> {
    if (this.ctx.engine !== 'pglite' || this.claimsSinceAnalyze < ANALYZE_AFTER_CLAIMS || Date.now() - this.analyzedAt < ANALYZE_INTERVAL_MS) return;
    this.claimsSinceAnalyze = 0;
    this.analyzedAt = Date.now();
    await analyseTables(this.ctx.db, ['webhook_deliveries', 'webhook_attempts']).catch((error: unknown) => this.options.onError?.(error, 'analyze'));
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const result = await deliver(this.deps, delivery);
    const recorded = this.record(result);
    // The slot is free once the answer is in, unless results are waiting to be written faster than
    // they can be: then it waits for its own, which bounds what a crash could leave unrecorded.
    if (this.pending.length > this.concurrency) await recorded;
  }

  /** Queues a result for the next recording round and resolves once it is written. */
  private record(result: AttemptResult): Promise<void> {
    return new Promise<void>((done) => {
      this.pending.push({ result, done });
      this.flushing ??= sleep(RECORD_LINGER_MS).then(() => this.flush());
    });
  }

  /**
   * Writes queued results, one statement per round, until none are left. Results that arrive while
   * a round is being written wait for the next one, so under load rounds grow and statements stay few.
   * A failed write is logged and dropped: those deliveries' leases run out and they are attempted
   * again, which keeps delivery at least once.
   */
  private async flush(): Promise<void> {
    while (this.pending.length > 0) {
      const round = this.pending.splice(0, MAX_RECORD_BATCH);
      try {
        await recordAttempts(
          this.ctx.db,
          this.id,
          this.deps.schedule.windowMs,
          round.map((p) => p.result),
        );
      } catch (error) {
        this.options.onError?.(error, 'record');
      }
      for (const p of round) p.done();
    }
    this.flushing = null;
  }
}
