import { sql } from 'kysely';
import type { Db } from '../../src/db/database';
import { RetryLater, type Job, type JobKind } from '../../src/jobs/queue';
import { IllegalMoveError } from '../../src/lib/state-machine';

/** Thrown from a processor call's hook: the worker process died there (the job stays claimed until its lease ends). */
export class WorkerKilled extends Error {
  constructor(where: string) {
    super(`worker killed ${where}`);
  }
}

/** How a job step ends. */
export type JobOutcome = 'done' | 'killed' | 'left-undeleted' | 'ran-twice' | 'retry' | 'abandoned' | 'refused' | 'exhausted';

interface JobRow {
  id: string;
  kind: string;
  payload: unknown;
  attempts: number;
  max_attempts: number;
  created_at: Date | string;
  outcome_unknown: boolean;
  stuck_since: Date | string | null;
}

interface Tracked {
  /** Virtual time the job was first seen (its deadline counts from here). */
  readonly seenAt: number;
  /** Virtual time before which it is not due (its run_at, a retry's backoff, a dead worker's lease). */
  notBefore: number;
}

const LEASE_MS = 10_000;
const STUCK_RECHECK_MS = 5 * 60_000;

/**
 * The job worker, run by hand. It claims a job of the `jobs` table the simulation chose, runs it
 * through the registry's handler for its kind, and settles it as JobWorker does (jobs/queue.ts):
 * delete on success, drop on IllegalMoveError, abandon a never-sent step past its deadline,
 * reschedule otherwise (outcome_unknown, stuck_since, failed_at as the worker writes them). The
 * payload is opaque here.
 *
 * Time is virtual: the driver keeps each job's due time and deadline in milliseconds of the run's own
 * clock, which only steps move. Backoff has no jitter. So whether a job is due depends on the seed
 * alone, not on how fast the machine is.
 */
export class JobDriver {
  /** The run's clock, in ms from its start. */
  now = 0;
  private readonly tracked = new Map<string, Tracked>();

  constructor(
    private readonly db: Db,
    private readonly kinds: ReadonlyMap<string, JobKind>,
    private readonly deadlineMs: number,
  ) {}

  /** Jobs due now, oldest first (ids of jobs seen for the first time are tracked from now). */
  async due(): Promise<string[]> {
    const { rows } = await sql<{ id: string; created_at: Date | string; run_at: Date | string }>`
      select id::text as id, created_at, run_at from jobs where failed_at is null and kind = any(${[...this.kinds.keys()]}::text[]) order by jobs.id`.execute(this.db);
    const present = new Set(rows.map((r) => r.id));
    for (const id of this.tracked.keys()) if (!present.has(id)) this.tracked.delete(id);
    for (const row of rows) {
      if (this.tracked.has(row.id)) continue;
      // A delay the service asked for (a refund's resume after a minute), read once in whole minutes:
      // run_at (the service's clock) and created_at (the database's) differ by the request's own time,
      // which must not decide whether a job is due now.
      const asked = new Date(row.run_at).getTime() - new Date(row.created_at).getTime();
      const delay = asked >= 30_000 ? Math.round(asked / 60_000) * 60_000 : 0;
      this.tracked.set(row.id, { seenAt: this.now, notBefore: this.now + delay });
    }
    return rows.map((r) => r.id).filter((id) => (this.tracked.get(id)?.notBefore ?? Infinity) <= this.now);
  }

  /** When the next job falls due, if any is pending. */
  nextDue(): number | undefined {
    const times = [...this.tracked.values()].map((t) => t.notBefore);
    return times.length === 0 ? undefined : Math.min(...times);
  }

  pending(): number {
    return this.tracked.size;
  }

  /** Forgets every job (between seeds the table is emptied). */
  async reset(): Promise<void> {
    await this.db.deleteFrom('jobs').execute();
    this.tracked.clear();
    this.now = 0;
  }

  /**
   * Runs one job. `leaveUndeleted`: the worker dies after the handler's effect and before the delete,
   * so the job runs again once its lease ends. `again`: after the handler's effect the job runs a
   * second time at once (a duplicated delivery), `between` running in between.
   */
  async run(id: string, mode: { leaveUndeleted?: boolean; again?: boolean; between?: () => Promise<void> } = {}): Promise<JobOutcome> {
    const job = await this.claim(id);
    const tracked = this.tracked.get(id);
    if (!job || !tracked) return 'done';
    const kind = this.kinds.get(job.kind);
    if (!kind) throw new Error(`no handler for ${job.kind}`);
    const attempt = await this.attempt(job, kind, tracked);
    if (attempt !== 'done') return attempt;
    if (mode.again) {
      await mode.between?.();
      const again = await this.claim(id);
      if (again) {
        const second = await this.attempt(again, kind, tracked);
        if (second !== 'done') return second;
      }
    }
    if (mode.leaveUndeleted) {
      tracked.notBefore = this.now + LEASE_MS;
      return 'left-undeleted';
    }
    await this.db.deleteFrom('jobs').where('id', '=', id).execute();
    return mode.again ? 'ran-twice' : 'done';
  }

  private async claim(id: string): Promise<(Job & { maxAttempts: number; stuck: boolean }) | undefined> {
    const { rows } = await sql<JobRow>`
      update jobs set locked_by = 'simulation', locked_until = now() + ${`${LEASE_MS} milliseconds`}::interval, attempts = attempts + 1
      where id = ${id} and failed_at is null
      returning id::text as id, kind, payload, attempts, max_attempts, created_at, outcome_unknown, stuck_since`.execute(this.db);
    const row = rows[0];
    if (!row) return undefined;
    return {
      id: row.id,
      kind: row.kind,
      payload: row.payload,
      attempts: row.attempts,
      maxAttempts: row.max_attempts,
      createdAt: new Date(row.created_at),
      outcomeUnknown: row.outcome_unknown,
      stuck: row.stuck_since !== null,
    };
  }

  /** One attempt: 'done' when the handler returned, otherwise how the job was settled. */
  private async attempt(job: Job & { maxAttempts: number; stuck: boolean }, kind: JobKind, tracked: Tracked): Promise<JobOutcome> {
    try {
      await kind.run(job);
      return 'done';
    } catch (error) {
      if (error instanceof WorkerKilled) {
        tracked.notBefore = this.now + LEASE_MS;
        return 'killed';
      }
      if (error instanceof IllegalMoveError) {
        await this.db.deleteFrom('jobs').where('id', '=', job.id).execute();
        return 'refused';
      }
      return this.failed(job, kind, tracked, error);
    }
  }

  /** JobWorker.failed, on the virtual clock. */
  private async failed(job: Job & { maxAttempts: number; stuck: boolean }, kind: JobKind, tracked: Tracked, error: unknown): Promise<JobOutcome> {
    const message = error instanceof Error ? error.message.slice(0, 2000) : String(error);
    const retryLater = error instanceof RetryLater ? error : undefined;
    const outcomeUnknown = job.outcomeUnknown || retryLater?.outcome === 'UNKNOWN';
    const pastDeadline = retryLater !== undefined && this.now - tracked.seenAt > this.deadlineMs;
    if (pastDeadline && !outcomeUnknown && kind.abandon) {
      try {
        await kind.abandon(job, message);
        await this.db.deleteFrom('jobs').where('id', '=', job.id).execute();
        return 'abandoned';
      } catch {
        // Abandoning failed too (a lost connection): retried like any failure.
      }
    }
    const delayMs = Math.min(1000 * 2 ** Math.min(job.attempts - 1, 12), 3_600_000);
    const exhausted = !retryLater && job.attempts >= job.maxAttempts;
    const stuck = pastDeadline || exhausted;
    const wait = pastDeadline ? Math.min(delayMs, STUCK_RECHECK_MS) : delayMs;
    await this.db
      .updateTable('jobs')
      .set({
        locked_by: null,
        locked_until: null,
        last_error: message,
        outcome_unknown: outcomeUnknown,
        run_at: new Date(Date.now() + wait),
        ...(exhausted ? { failed_at: new Date() } : {}),
        ...(stuck && !job.stuck ? { stuck_since: new Date() } : {}),
      })
      .where('id', '=', job.id)
      .execute();
    tracked.notBefore = this.now + wait;
    if (exhausted) this.tracked.delete(job.id);
    return exhausted ? 'exhausted' : 'retry';
  }
}
