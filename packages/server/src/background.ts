import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from './context';
import { jobHandlers, periodicTasks } from './job-registry';
import { JobWorker, type WorkerOptions } from './jobs/queue';
import { listenForWakeups } from './jobs/wakeups';
import { DeliveryWorker } from './webhooks/delivery-worker';

/**
 * The background side of a Colibri process: the job worker, the callback worker and the periodic
 * sweeps of job-registry.ts. `colibri serve` (main.ts) runs it beside HTTP (unless COLIBRI_WORKERS=off);
 * `colibri worker` (worker.ts) runs it alone.
 * @example const background = startBackground(ctx, logger); … await background.stop();
 */
export function startBackground(ctx: AppContext, logger: FastifyBaseLogger, options: WorkerOptions & { sweepScale?: number } = {}) {
  const work = ctx.config.work;
  const worker = new JobWorker(ctx.db, jobHandlers(ctx), {
    engine: ctx.engine,
    concurrency: work.concurrency,
    leaseMs: work.leaseMs,
    claimIntervalMs: work.claimIntervalMs,
    deadlineMs: work.deadlineMs,
    stopTimeoutMs: work.stopTimeoutMs,
    ...options,
    onError: (error, job) => logger.warn({ err: error, job_id: job.id, kind: job.kind, attempts: job.attempts }, 'job failed'),
    onStuck: (job, reason) => logger.error({ job_id: job.id, kind: job.kind, attempts: job.attempts, reason }, 'job stuck past its deadline; see GET /admin/stuck-operations'),
  });
  // Callbacks have a worker of their own: an attempt may take 15 s, which must not hold up jobs.
  const deliveries = new DeliveryWorker(ctx, {
    pollMs: options.pollMs,
    claimIntervalMs: work.claimIntervalMs,
    onError: (error, context) => logger.warn({ err: error, context }, 'callback worker error'),
  });
  const wake = () => {
    worker.poke();
    deliveries.poke();
  };
  const unsubscribe = ctx.workerSignal.subscribe(wake);
  // On PostgreSQL, work enqueued by processes without workers (COLIBRI_WORKERS=off) is announced (jobs/wakeups.ts).
  const listener =
    ctx.engine === 'postgres' && ctx.config.databaseUrl
      ? listenForWakeups(ctx.config.databaseUrl, wake, { onError: (error) => logger.warn({ err: error }, 'wake-up listener: connection lost or refused; polling meanwhile') })
      : undefined;
  worker.start();
  deliveries.start();
  const tasks = periodicTasks(ctx);
  const timers = tasks.map((task) => {
    let busy = false;
    return setInterval(async () => {
      if (busy) return;
      busy = true;
      try {
        await task.run();
      } catch (error) {
        logger.warn({ err: error, task: task.name }, 'periodic task failed');
      } finally {
        busy = false;
      }
    }, Math.max(10, Math.round(task.everyMs * (options.sweepScale ?? 1))));
  });
  return {
    worker,
    deliveries,
    /** Runs every periodic task once now (sandbox clock moves and tests use it). */
    async sweep(): Promise<void> {
      for (const task of tasks) await task.run();
    },
    async stop(): Promise<void> {
      for (const timer of timers) clearInterval(timer);
      unsubscribe();
      await Promise.all([worker.stop(), deliveries.stop(), listener?.stop()]);
    },
  };
}

export type Background = ReturnType<typeof startBackground>;
