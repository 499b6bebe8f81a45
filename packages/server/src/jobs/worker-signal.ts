/**
 * A wake-up line from the code that enqueues jobs to the workers of the same process, so work runs
 * at once instead of at the next poll. Workers in other processes find the job at their next poll.
 */
export class WorkerSignal {
  private readonly listeners = new Set<() => void>();

  /** @example signal.poke() // after committing a transaction that enqueued a job */
  poke(): void {
    for (const listener of this.listeners) listener();
  }

  /** @example const off = signal.subscribe(() => worker.poke()) */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/**
 * What a route may ask of its process's background work (background.ts): run every periodic sweep
 * now, as the sandbox does when a merchant's clock moves.
 */
export interface BackgroundSweep {
  sweep(): Promise<void>;
}
