import { createHash } from 'node:crypto';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { postgresPool, type Db, type Engine } from '../db/database';
import { ApiError } from './errors';

/**
 * Counters shared by every process of one database, through `rate-limiter-flexible` (a well-kept
 * limiter library) over PostgreSQL, in the `rate_limits` table that migration 0014 creates in the
 * layout the library expects. PGlite is one process's embedded database and its connection is
 * Kysely's alone, so there the library's memory store counts instead: with one process, that is the
 * same limit.
 */
export interface LimiterSpec {
  /** Keeps each limiter's counters apart in the shared table. */
  readonly name: string;
  readonly points: number;
  readonly windowSeconds: number;
}

/** @example const limiter = sharedLimiter(ctx.db, ctx.engine, { name: 'auth-fail-ka', points: 10, windowSeconds: 900 }); */
export function sharedLimiter(db: Db, engine: Engine, spec: LimiterSpec): RateLimiterAbstract {
  const options = { keyPrefix: spec.name, points: spec.points, duration: spec.windowSeconds };
  const pool = engine === 'postgres' ? postgresPool(db) : undefined;
  if (!pool) return new RateLimiterMemory(options);
  // clearExpiredByTimeout would start a timer per limiter; expired rows are overwritten in place and
  // swept by the one limiter that keeps the timer (see LOGIN_SWEEPER).
  return new RateLimiterPostgres({ ...options, storeClient: pool, storeType: 'pool', tableName: 'rate_limits', tableCreated: true, clearExpiredByTimeout: spec.name === SWEEPER_NAME });
}

/** The limiter whose timer deletes expired counters of every limiter in the table. */
export const SWEEPER_NAME = 'auth-fail-addr';

/**
 * A fixed-length counter key: API keys and addresses of any length fit the table's 255 characters, and
 * the table never holds an API key itself.
 * @example limiterKey('ck_…', '203.0.113.7')
 */
export function limiterKey(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\n')).digest('base64url');
}

/**
 * Consumes one point, or refuses the request with 429 and Retry-After when the limit is spent.
 * @example await consumeOrRefuse(limiter, limiterKey(request.ip));
 */
export async function consumeOrRefuse(limiter: RateLimiterAbstract, key: string, errorKey: 'RATE_LIMITED' | 'THREE_DS_RATE_LIMITED' = 'RATE_LIMITED'): Promise<void> {
  try {
    await limiter.consume(key);
  } catch (error) {
    if (error instanceof RateLimiterRes) throw refusal(error, errorKey);
    throw error;
  }
}

/**
 * Refuses when the counter has already reached the limit, without counting (for failure counters,
 * which count only failures).
 * @example await refuseIfSpent(failures, key);
 */
export async function refuseIfSpent(limiter: RateLimiterAbstract, key: string): Promise<void> {
  const state = await limiter.get(key);
  if (state && state.consumedPoints >= limiter.points) throw refusal(state);
}

function refusal(state: RateLimiterRes, errorKey: 'RATE_LIMITED' | 'THREE_DS_RATE_LIMITED' = 'RATE_LIMITED'): ApiError {
  return new ApiError(errorKey, undefined, { retryAfterSeconds: Math.max(1, Math.ceil(state.msBeforeNext / 1000)) });
}
