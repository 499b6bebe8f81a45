import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database';
import { jsonParameter } from '../lib/json';

/**
 * A durable job queue in the database, on both engines. Jobs are enqueued in the same transaction as
 * the state change that needs them (so a committed change always has its job, and a rolled-back one
 * never does), claimed with `for update skip locked` (several workers in several processes never
 * claim one job twice at once), and retried with capped exponential backoff and jitter. A claim is a
 * lease: a worker that dies mid-job loses it when `locked_until` passes, and another takes the job.
 */

export interface Job<P = unknown> {
  readonly id: string;
  readonly kind: string;
  readonly payload: P;
  readonly attempts: number;
}

export type JobHandler = (job: Job<any>) => Promise<void>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Thrown by a handler to be retried later without counting as a failure in the logs. */
export class RetryLater extends Error {
  constructor(
    message: string,
    readonly delayMs: number,
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

function jobRow(kind: string, payload: unknown, options: EnqueueOptions) {
  return {
    kind,
    payload: JSON.stringify(payload),
    run_at: options.runAt ?? new Date(),
    unique_key: options.uniqueKey ?? null,
    max_attempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    locked_by: null,
    locked_until: null,
    last_error: null,
    failed_at: null,
  };
}

/** @example await enqueue(trx, 'payment.authorize', { paymentToken }) */
export async function enqueue(db: Db, kind: string, payload: unknown, options: EnqueueOptions = {}): Promise<void> {
  await db
    .insertInto('jobs')
    .values(jobRow(kind, payload, options))
    .onConflict((oc) => oc.column('unique_key').doNothing())
    .execute();
}

/**
 * An INSERT of jobs for a data-modifying CTE: each job is enqueued only where `anchor` (a CTE of the
 * same statement) has a row whose `key` column is the job's `resourceId`, so it exists exactly when
 * the change that needs it happened. One statement may so enqueue the jobs of many changes.
 * @example sql`with payment as (…), job as (${jobsInsertFrom('payment', 'payment_token', [{ resourceId: token, kind: 'payment.process', payload }])}) select * from payment`
 */
export function jobsInsertFrom(anchor: string, key: string, jobs: readonly { resourceId: string; kind: string; payload: unknown }[]): RawBuilder<unknown> {
  const rows = jobs.map((job) => ({ kind: job.kind, payload: job.payload, run_at: new Date(), max_attempts: DEFAULT_MAX_ATTEMPTS, resource_id: job.resourceId }));
  return sql`
    insert into jobs (kind, payload, run_at, max_attempts)
    select j.kind, j.payload, j.run_at, j.max_attempts
    from ${sql.table(anchor)} as a
    join jsonb_to_recordset(${jsonParameter(rows)}::jsonb) as j(resource_id text, kind text, payload jsonb, run_at timestamptz, max_attempts integer)
      on j.resource_id = a.${sql.ref(key)}::text`;
}

/** Rows per INSERT: jobs have 9 columns, and PostgreSQL allows 65,535 parameters per statement. */
const JOBS_PER_INSERT = 5000;

/**
 * Enqueues many jobs in the caller's transaction with one statement per 5,000 (a payout batch enqueues
 * one job per payout), with the same unique-key rule as `enqueue`.
 * @example await enqueueMany(trx, txIds.map((txId) => ({ kind: 'payout.process', payload: { txId } })))
 */
export async function enqueueMany(db: Db, jobs: readonly { kind: string; payload: unknown; options?: EnqueueOptions }[]): Promise<void> {
  const rows = jobs.map((job) => jobRow(job.kind, job.payload, job.options ?? {}));
  for (let start = 0; start < rows.length; start += JOBS_PER_INSERT) {
    await db
      .insertInto('jobs')
      .values(rows.slice(start, start + JOBS_PER_INSERT))
      .onConflict((oc) => oc.column('unique_key').doNothing())
      .execute();
  }
}

/** Retry delay after `attempts` failures: 1 s doubling to at most 1 h, with ±20 % jitter. */
export function backoffMs(attempts: number, random = Math.random): number {
  const base = Math.min(3_600_000, 1000 * 2 ** Math.max(0, attempts - 1));
  return Math.round(base * (0.8 + 0.4 * random()));
}

/**
 * Jobs claimed at once. Handlers of one batch run concurrently, and the card payment handler shares its
 * statements across them (lib/batch.ts), so a larger batch settles more payments per round trip: with
 * 20 the authorisations fell behind sendPayment under load (bench/payments.ts), with 100 they keep up.
 */
const DEFAULT_BATCH_SIZE = 100;

export interface WorkerOptions {
  /** How long a claim lasts before another worker may take the job. */
  leaseMs?: number;
  batchSize?: number;
  /** Idle poll interval; `poke()` wakes the worker at once. */
  pollMs?: number;
  onError?: (error: unknown, job: Job) => void;
}

/**
 * Runs due jobs with registered handlers until stopped.
 * @example
 * const worker = new JobWorker(db, handlers);
 * worker.start();
 * await worker.stop();
 */
export class JobWorker {
  readonly id = `worker-${randomUUID()}`;
  private running = false;
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;

  constructor(
    private readonly db: Db,
    private readonly handlers: ReadonlyMap<string, JobHandler>,
    private readonly options: WorkerOptions = {},
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.poke();
    await this.loop;
  }

  /** Wakes the worker now (after enqueueing work this process knows about). */
  poke(): void {
    this.wake?.();
  }

  /** Claims and runs one batch; returns how many jobs ran. Exposed for tests and `colibri worker`. */
  async runOnce(): Promise<number> {
    const jobs = await this.claim();
    const outcomes = await Promise.all(jobs.map((job) => this.execute(job)));
    // Finished jobs leave the queue together: one statement per batch, not one per job. A crash before
    // this line runs them again when their lease ends, so handlers are idempotent.
    const done = jobs.filter((_, i) => outcomes[i]).map((job) => job.id);
    if (done.length > 0) await this.db.deleteFrom('jobs').where('id', 'in', done).where('locked_by', '=', this.id).execute();
    return jobs.length;
  }

  private async run(): Promise<void> {
    while (this.running) {
      let ran = 0;
      try {
        ran = await this.runOnce();
      } catch (error) {
        this.options.onError?.(error, { id: '', kind: 'claim', payload: null, attempts: 0 });
        await sleep(1000);
      }
      if (ran === 0 && this.running) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.options.pollMs ?? 500);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = null;
      }
    }
  }

  private async claim(): Promise<Job[]> {
    const kinds = [...this.handlers.keys()];
    if (kinds.length === 0) return [];
    const leaseMs = this.options.leaseMs ?? 60_000;
    const rows = await sql<{ id: string; kind: string; payload: unknown; attempts: number }>`
      update jobs set locked_by = ${this.id}, locked_until = now() + ${`${leaseMs} milliseconds`}::interval, attempts = attempts + 1
      where id in (
        select id from jobs
        where run_at <= now() and failed_at is null and (locked_until is null or locked_until < now())
          and kind = any(${kinds}::text[])
        order by run_at
        limit ${this.options.batchSize ?? DEFAULT_BATCH_SIZE}
        for update skip locked
      )
      returning id, kind, payload, attempts`.execute(this.db);
    return rows.rows.map((r) => ({ id: String(r.id), kind: r.kind, payload: r.payload, attempts: r.attempts }));
  }

  /** Runs one job; true when it is done (to be deleted), false when it was rescheduled. */
  private async execute(job: Job & { attempts: number }): Promise<boolean> {
    const handler = this.handlers.get(job.kind);
    try {
      if (!handler) throw new Error(`no handler for ${job.kind}`);
      await handler(job);
      return true;
    } catch (error) {
      const retryLater = error instanceof RetryLater;
      if (!retryLater) this.options.onError?.(error, job);
      const row = await this.db.selectFrom('jobs').select('max_attempts').where('id', '=', job.id).executeTakeFirst();
      const exhausted = !retryLater && row !== undefined && job.attempts >= row.max_attempts;
      await this.db
        .updateTable('jobs')
        .set({
          locked_by: null,
          locked_until: null,
          last_error: error instanceof Error ? error.message.slice(0, 2000) : String(error),
          run_at: new Date(Date.now() + (retryLater ? error.delayMs : backoffMs(job.attempts))),
          ...(exhausted ? { failed_at: new Date() } : {}),
        })
        .where('id', '=', job.id)
        .where('locked_by', '=', this.id)
        .execute();
      return false;
    }
  }
}
