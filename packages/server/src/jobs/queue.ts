import { randomUUID } from 'node:crypto';
import { sql, type RawBuilder } from 'kysely';
import type { Db, Engine } from '../db/database';
import { batchCalls } from '../lib/batch';
import { jsonRows } from '../lib/json';
import { IllegalMoveError } from '../lib/state-machine';
import { JOB_RETRY_SCHEDULE, retryDelayMs } from './backoff';
import { LeasedWindow } from './window';

/**
 * A durable job queue in the database, on both engines. Jobs are enqueued in the same transaction as
 * the state change that needs them (so a committed change always has its job, and a rolled-back one
 * never does), claimed with `for update skip locked` (several workers in several processes never
 * claim one job twice at once), and retried with capped exponential backoff and jitter. A claim is a
 * short lease, renewed while the job runs: a worker that dies mid-job loses it within one lease, and
 * another takes the job. Workers keep a bounded window of jobs in flight (jobs/window.ts).
 */

export interface Job<P = unknown> {
  readonly id: string;
  readonly kind: string;
  readonly payload: P;
  /** This attempt's number (1 for the first). */
  readonly attempts: number;
  readonly createdAt: Date;
  /** An earlier attempt may have reached the processor without an answer. */
  readonly outcomeUnknown: boolean;
}

export type JobHandler = (job: Job<any>) => Promise<void>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * A job kind: its handler, and what to do when a step that never reached the processor is still
 * failing at its deadline (end the payment `ERROR`, the refund `FAILED`, …). Kinds without `abandon`
 * are reported as stuck at the deadline instead.
 */
export interface JobKind {
  run: JobHandler;
  abandon?: (job: Job<any>, reason: string) => Promise<void>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/**
 * Whether a failed attempt may have had an effect. `NOT_SENT`: the request never reached the processor
 * (nothing happened; giving up is safe). `UNKNOWN`: it may have been executed; only a status query may
 * settle it, and the job is never given up silently.
 */
export type AttemptOutcome = 'NOT_SENT' | 'UNKNOWN';

/** Thrown by a handler to be retried later without counting as a failure in the logs (a processor that is down or slow). */
export class RetryLater extends Error {
  constructor(
    message: string,
    readonly delayMs: number,
    readonly outcome: AttemptOutcome = 'UNKNOWN',
  ) {
    super(message);
  }
}

export interface EnqueueOptions {
  runAt?: Date;
  /** At most one pending job per unique key; a second enqueue with the key is ignored. */
  uniqueKey?: string;
  maxAttempts?: number;
}

const DEFAULT_MAX_ATTEMPTS = 25;

/** A job to enqueue: its kind, its payload (JSON) and the options of enqueue. */
export interface NewJob {
  kind: string;
  payload: unknown;
  options?: EnqueueOptions | undefined;
}

/** A job's row as the INSERT below reads it: every option of enqueue, or its default. */
function jobRow(job: NewJob & { resourceId?: string }) {
  const options = job.options ?? {};
  return {
    kind: job.kind,
    payload: job.payload,
    run_at: options.runAt ?? new Date(),
    unique_key: options.uniqueKey ?? null,
    max_attempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    resource_id: job.resourceId ?? null,
  };
}

/**
 * The one INSERT of jobs, which every writer below runs, so each honours every option (run_at,
 * unique_key, max_attempts): at most one pending job per unique key. The jobs travel as one JSON
 * parameter, so one query text serves any number of them. With `after`, each job is enqueued only
 * where that CTE of the same statement has a row whose `key` column is the job's resource id.
 */
function insertJobs(jobs: readonly (NewJob & { resourceId?: string })[], after?: { anchor: string; key: string }): RawBuilder<unknown> {
  const source = sql`json_to_recordset(${jsonRows(jobs.map(jobRow))}::json)
      as j(resource_id text, kind text, payload jsonb, run_at timestamptz, unique_key text, max_attempts integer)`;
  return sql`
    insert into jobs (kind, payload, run_at, unique_key, max_attempts)
    select j.kind, j.payload, j.run_at, j.unique_key, j.max_attempts
    from ${after ? sql`${sql.table(after.anchor)} as a join ${source} on j.resource_id = a.${sql.ref(after.key)}::text` : source}
    on conflict (unique_key) do nothing`;
}

/**
 * Enqueues jobs in the caller's transaction with one statement for any number of them (a payout batch
 * enqueues one job per payout). A job whose unique key is pending already is not enqueued again.
 * @example await enqueueMany(trx, txIds.map((txId) => ({ kind: PROCESS_PAYOUT_JOB, payload: { txId }, options: { uniqueKey: `${PROCESS_PAYOUT_JOB}:${txId}` } })))
 */
export async function enqueueMany(db: Db, jobs: readonly NewJob[]): Promise<void> {
  if (jobs.length === 0) return;
  await insertJobs(jobs).execute(db);
}

/**
 * Enqueues one job in the caller's transaction: enqueueMany of one.
 * @example await enqueue(trx, PROCESS_PAYMENT_JOB, { paymentToken, merchantId, step: 'capture' })
 */
export function enqueue(db: Db, kind: string, payload: unknown, options: EnqueueOptions = {}): Promise<void> {
  return enqueueMany(db, [{ kind, payload, options }]);
}

/**
 * enqueueMany as a data-modifying CTE of a larger statement (sendPayment's shared insert): each job is
 * enqueued only where `anchor` (a CTE of the same statement) has a row whose `key` column is the job's
 * `resourceId`, so it exists exactly when the change that needs it happened.
 * @example sql`with payment as (…), job as (${jobsInsertFrom('payment', 'payment_token', [{ resourceId: token, kind: PROCESS_PAYMENT_JOB, payload }])}) select * from payment`
 */
export function jobsInsertFrom(anchor: string, key: string, jobs: readonly (NewJob & { resourceId: string })[]): RawBuilder<unknown> {
  return insertJobs(jobs, { anchor, key });
}

/**
 * Cancels the job enqueued under `uniqueKey` (nothing when there is none), in the caller's transaction:
 * for a change undone before it was announced, whose job must not run (a refund reserved for a
 * processor that turned out to be unavailable). A worker running it meanwhile finds its resource gone.
 * @example await cancelJob(trx, refundReference(refund))
 */
export async function cancelJob(db: Db, uniqueKey: string): Promise<void> {
  await db.deleteFrom('jobs').where('unique_key', '=', uniqueKey).execute();
}

/**
 * Makes the job enqueued under `uniqueKey` due now (nothing when there is none), in the caller's
 * transaction: for a job enqueued to run later as a fallback, once its moment has come sooner (a
 * refund's settlement, due in a minute from its reservation, once the processor has answered). The
 * caller pokes the worker after committing.
 * @example await runJobNow(trx, refundReference(refund)) // a refund's settlement is enqueued under its processor reference
 */
export async function runJobNow(db: Db, uniqueKey: string): Promise<void> {
  await db.updateTable('jobs').set({ run_at: new Date() }).where('unique_key', '=', uniqueKey).execute();
}

/** Retry delay after `attempts` failures: 1 s doubling to at most 1 h, with ±20 % jitter (jobs/backoff.ts). */
export function backoffMs(attempts: number, random = Math.random): number {
  return retryDelayMs(JOB_RETRY_SCHEDULE, attempts, random);
}

export interface WorkerOptions {
  /** The engine: on PGlite, held by one process, leases of other workers are dead processes'. */
  engine?: Engine;
  /** Jobs in flight at once in this process (COLIBRI_WORKER_CONCURRENCY). */
  concurrency?: number;
  /** How long a claim lasts unless renewed; running jobs renew theirs every third of it. */
  leaseMs?: number;
  /** Idle poll interval; `poke()` wakes the worker at once. */
  pollMs?: number;
  /**
   * The shortest time between two claims (COLIBRI_CLAIM_INTERVAL_MS). A poke after a quiet spell claims
   * at once; under load, the jobs enqueued meanwhile are claimed together and run, and settle, in
   * batches, which is most of what a job costs (docs/performance.md).
   */
  claimIntervalMs?: number;
  /**
   * How long a job may keep failing before it is given up (a step that never reached the processor)
   * or reported as stuck (a step whose outcome is unknown), counted from when it was enqueued.
   */
  deadlineMs?: number;
  /** How long `stop()` waits for jobs in flight before releasing their claims. */
  stopTimeoutMs?: number;
  /** Called when a job fails (it is retried), or is refused by a state table (IllegalMoveError: it is dropped). */
  onError?: (error: unknown, job: Job) => void;
  /** Called once when a job of unknown outcome passes its deadline. */
  onStuck?: (job: Job, reason: string) => void;
}

export const DEFAULT_WORKER_CONCURRENCY = 5000;
export const DEFAULT_JOB_LEASE_MS = 10_000;
export const DEFAULT_JOB_DEADLINE_MS = 30 * 60_000;
export const DEFAULT_CLAIM_INTERVAL_MS = 100;
/** A stuck job is still reconciled, at least this often. */
const STUCK_RECHECK_MS = 5 * 60_000;

/** The job workers of this process; on PGlite, which one process holds, every other lease is a dead process's. */
const LIVE_WORKERS = new Set<string>();

interface JobRow {
  id: string | bigint;
  kind: string;
  payload: unknown;
  attempts: number;
  max_attempts: number;
  created_at: Date | string;
  outcome_unknown: boolean;
  stuck_since: Date | string | null;
}

type ClaimedJob = Job & { readonly maxAttempts: number; readonly stuck: boolean };

/**
 * Runs due jobs with registered handlers until stopped, keeping up to `concurrency` of them in flight.
 * Finished jobs leave the queue together (one delete per turn of the event loop). A job that fails is
 * retried with backoff; one that keeps failing past its kind's deadline is given up if it never reached
 * the processor (`JobKind.abandon`) and reported as stuck otherwise (GET /admin/stuck-operations).
 * @example
 * const worker = new JobWorker(db, handlers, { concurrency: 1000 });
 * worker.start();
 * await worker.stop();
 */
export class JobWorker {
  readonly id = `worker-${randomUUID()}`;
  private readonly kinds: ReadonlyMap<string, JobKind>;
  private readonly window: LeasedWindow<ClaimedJob>;
  private readonly leaseMs: number;
  private readonly deadlineMs: number;
  private readonly finish: (id: string) => Promise<void>;
  private releasedDead = false;

  constructor(
    private readonly db: Db,
    handlers: ReadonlyMap<string, JobHandler | JobKind>,
    private readonly options: WorkerOptions = {},
  ) {
    this.kinds = new Map([...handlers].map(([kind, handler]) => [kind, typeof handler === 'function' ? { run: handler } : handler]));
    this.leaseMs = options.leaseMs ?? DEFAULT_JOB_LEASE_MS;
    this.deadlineMs = options.deadlineMs ?? DEFAULT_JOB_DEADLINE_MS;
    // Finished jobs leave the queue together: one statement per turn, not one per job. A crash before
    // it runs them again when their lease ends, so handlers are idempotent.
    this.finish = batchCalls(async (ids: readonly string[]) => {
      await this.db.deleteFrom('jobs').where('id', 'in', [...ids]).where('locked_by', '=', this.id).execute();
      return ids.map(() => undefined);
    });
    this.window = new LeasedWindow<ClaimedJob>(
      {
        claim: (limit) => this.claim(limit),
        run: (job) => this.execute(job),
        renew: (jobs) => this.setLease(jobs, 'renew'),
        release: (jobs) => this.setLease(jobs, 'release'),
      },
      {
        concurrency: options.concurrency ?? DEFAULT_WORKER_CONCURRENCY,
        leaseMs: this.leaseMs,
        pollMs: options.pollMs ?? 500,
        claimIntervalMs: options.claimIntervalMs ?? DEFAULT_CLAIM_INTERVAL_MS,
        stopTimeoutMs: options.stopTimeoutMs ?? 10_000,
        onError: (error, context) => options.onError?.(error, { id: '', kind: context, payload: null, attempts: 0, createdAt: new Date(), outcomeUnknown: false }),
      },
    );
  }

  /** Jobs in flight in this worker now. */
  get inFlight(): number {
    return this.window.size;
  }

  start(): void {
    LIVE_WORKERS.add(this.id);
    this.window.start();
  }

  /** Stops claiming, finishes the jobs in flight (bounded by `stopTimeoutMs`) and releases the claims of the rest. */
  async stop(): Promise<void> {
    await this.window.stop();
    LIVE_WORKERS.delete(this.id);
  }

  /** Wakes the worker now (after enqueueing work this process knows about). */
  poke(): void {
    this.window.poke();
  }

  private async claim(limit: number): Promise<ClaimedJob[]> {
    const kinds = [...this.kinds.keys()];
    if (kinds.length === 0) return [];
    await this.releaseDeadLeases();
    const rows = await sql<JobRow>`
      update jobs set locked_by = ${this.id}, locked_until = now() + ${`${this.leaseMs} milliseconds`}::interval, attempts = attempts + 1
      where id in (
        select id from jobs
        where run_at <= now() and failed_at is null and (locked_until is null or locked_until < now())
          and kind = any(${kinds}::text[])
        order by run_at
        limit ${limit}
        for update skip locked
      )
      returning id, kind, payload, attempts, max_attempts, created_at, outcome_unknown, stuck_since`.execute(this.db);
    return rows.rows.map((r) => ({
      id: String(r.id),
      kind: r.kind,
      payload: r.payload,
      attempts: r.attempts,
      maxAttempts: r.max_attempts,
      createdAt: new Date(r.created_at),
      outcomeUnknown: r.outcome_unknown,
      stuck: r.stuck_since !== null,
    }));
  }

  /**
   * PGlite is held by one process at a time, so at the first claim every lease that no worker of this
   * process holds is a dead process's: its jobs are taken over now instead of when the lease runs out.
   */
  private async releaseDeadLeases(): Promise<void> {
    if (this.releasedDead) return;
    this.releasedDead = true;
    if (this.options.engine !== 'pglite') return;
    await this.db
      .updateTable('jobs')
      .set({ locked_by: null, locked_until: null })
      .where('locked_by', 'is not', null)
      .where('locked_by', 'not in', [...LIVE_WORKERS, ''])
      .execute();
  }

  private async setLease(jobs: readonly ClaimedJob[], action: 'renew' | 'release'): Promise<void> {
    const ids = jobs.map((job) => job.id);
    await sql`
      update jobs set
        locked_until = ${action === 'renew' ? sql`now() + ${`${this.leaseMs} milliseconds`}::interval` : sql`null`},
        locked_by = ${action === 'renew' ? this.id : null}
      where locked_by = ${this.id} and id = any(${ids}::bigint[])`.execute(this.db);
  }

  /** Runs one job; on success it leaves the queue, on failure it is rescheduled, given up or reported. */
  private async execute(job: ClaimedJob): Promise<void> {
    const kind = this.kinds.get(job.kind);
    try {
      if (!kind) throw new Error(`no handler for ${job.kind}`);
      await kind.run(job);
    } catch (error) {
      // A move the resource's state table refuses would be refused again on every retry: the refusal
      // is logged and the job leaves the queue (nothing was written; lib/state-machine.ts).
      if (error instanceof IllegalMoveError) this.options.onError?.(error, job);
      else return this.failed(job, kind, error);
    }
    await this.finish(job.id);
  }

  private async failed(job: ClaimedJob, kind: JobKind | undefined, error: unknown): Promise<void> {
    const message = error instanceof Error ? error.message.slice(0, 2000) : String(error);
    const retryLater = error instanceof RetryLater ? error : undefined;
    if (!retryLater) this.options.onError?.(error, job);
    const outcomeUnknown = job.outcomeUnknown || retryLater?.outcome === 'UNKNOWN';
    const pastDeadline = retryLater !== undefined && Date.now() - job.createdAt.getTime() > this.deadlineMs;
    if (pastDeadline && !outcomeUnknown && kind?.abandon) {
      // Nothing ever reached the processor: giving up is safe, and the resource says why.
      await kind.abandon(job, message);
      await this.finish(job.id);
      return;
    }
    const delayMs = retryLater ? retryLater.delayMs : backoffMs(job.attempts);
    const exhausted = !retryLater && job.attempts >= job.maxAttempts;
    const stuck = pastDeadline || exhausted;
    if (stuck && !job.stuck) this.options.onStuck?.(job, message);
    await this.db
      .updateTable('jobs')
      .set({
        locked_by: null,
        locked_until: null,
        last_error: message,
        outcome_unknown: outcomeUnknown,
        run_at: new Date(Date.now() + (pastDeadline ? Math.min(delayMs, STUCK_RECHECK_MS) : delayMs)),
        ...(exhausted ? { failed_at: new Date() } : {}),
        ...(stuck && !job.stuck ? { stuck_since: new Date() } : {}),
      })
      .where('id', '=', job.id)
      .where('locked_by', '=', this.id)
      .execute();
  }
}

