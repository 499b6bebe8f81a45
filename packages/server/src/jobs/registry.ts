import type { AppContext } from '../context';
import type { JobHandler } from './queue';

/**
 * Every job kind and its handler. Each domain exports a function returning its handlers; this is the
 * one place they are put together, so a reader sees all background work of the service here.
 */
export function jobHandlers(_ctx: AppContext): Map<string, JobHandler> {
  return new Map<string, JobHandler>([]);
}

/** Periodic sweeps (expiries, schedules): each runs every `everyMs` in every worker process. */
export interface PeriodicTask {
  name: string;
  everyMs: number;
  run(): Promise<void>;
}

export function periodicTasks(_ctx: AppContext): PeriodicTask[] {
  return [];
}
