/**
 * The one retry schedule of background work: jobs (jobs/queue.ts, `JOB_RETRY_SCHEDULE`) and callbacks
 * (docs/callbacks.md, "Retries", `DEFAULT_RETRY_SCHEDULE`) differ only in their numbers. After the n-th failed attempt in a
 * row the next one waits `min(cap, base × 2^(n−1))`, spread by ±20 % jitter so that callbacks which
 * failed together (a merchant's outage) do not all come back in the same second. A failed attempt
 * made when the retry window (72 hours) has passed since the delivery began is final.
 */
export interface RetrySchedule {
  /** Delay after the first failure. */
  readonly baseMs: number;
  /** Longest delay between two attempts. */
  readonly capMs: number;
  /** Fraction by which each delay is randomly shortened or lengthened. */
  readonly jitter: number;
  /** How long a delivery is retried before a failure marks it failed. */
  readonly windowMs: number;
}

/** Jobs: 1 s doubling to one hour, ±20 %; how long a job is retried is its kind's deadline (queue.ts). */
export const JOB_RETRY_SCHEDULE: RetrySchedule = {
  baseMs: 1_000,
  capMs: 3_600_000,
  jitter: 0.2,
  windowMs: Number.POSITIVE_INFINITY,
};

/** Callbacks: 5 s doubling to one hour, ±20 %, for 72 hours. */
export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = {
  baseMs: 5_000,
  capMs: 3_600_000,
  jitter: 0.2,
  windowMs: 72 * 3_600_000,
};

/**
 * The delay before the next attempt after `failures` failed attempts in a row (1 or more).
 * @example retryDelayMs(DEFAULT_RETRY_SCHEDULE, 1, () => 0.5) // 5000
 * @example retryDelayMs(DEFAULT_RETRY_SCHEDULE, 20, () => 0.5) // 3600000 (the cap)
 */
export function retryDelayMs(schedule: RetrySchedule, failures: number, random: () => number = Math.random): number {
  const exponent = Math.min(Math.max(failures, 1) - 1, 40);
  const nominal = Math.min(schedule.capMs, schedule.baseMs * 2 ** exponent);
  return Math.max(1, Math.round(nominal * (1 - schedule.jitter + 2 * schedule.jitter * random())));
}

/**
 * The nominal schedule (no jitter) as a table: the attempt number, its delay after the previous one
 * and the time since the first attempt, until the window closes. docs/callbacks.md shows it.
 * @example nominalSchedule(DEFAULT_RETRY_SCHEDULE).length // 82 attempts over 72 hours
 */
export function nominalSchedule(schedule: RetrySchedule): { attempt: number; delayMs: number; atMs: number }[] {
  const rows = [{ attempt: 1, delayMs: 0, atMs: 0 }];
  let at = 0;
  for (let failures = 1; at < schedule.windowMs; failures += 1) {
    const delayMs = retryDelayMs(schedule, failures, () => 0.5);
    at += delayMs;
    rows.push({ attempt: failures + 1, delayMs, atMs: at });
  }
  return rows;
}
