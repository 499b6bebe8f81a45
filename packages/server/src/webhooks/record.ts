import { sql } from 'kysely';
import type { Db } from '../db/database';

/** One finished attempt, as the worker hands it to `recordAttempts`. */
export interface AttemptResult {
  readonly deliveryId: bigint;
  /** The delivery's merchant, which the attempt log's key carries. */
  readonly merchantId: string;
  readonly eventId: string;
  readonly attempt: number;
  readonly manual: boolean;
  readonly startedAt: Date;
  readonly latencyMs: number;
  readonly responseStatus: number | null;
  readonly error: string | null;
  readonly delivered: boolean;
  /** A failure no retry can fix: the delivery fails now, whatever the window. */
  readonly permanent: boolean;
  /** The wait before the next attempt, should this one be a failure inside the window. */
  readonly retryDelayMs: number;
}

/**
 * Records finished attempts in one statement: each delivery's new state, and one row per attempt in
 * the attempt log. Whether a failure is retried or final is decided here, on the database's clock,
 * against the delivery's retry window. Only the worker that holds a delivery's lease updates it; an
 * attempt whose lease ran out (which would take an attempt far beyond its timeout) is still logged,
 * and the delivery is left to whichever worker holds it now.
 * @example await recordAttempts(db, worker.id, windowMs, results);
 */
export async function recordAttempts(db: Db, workerId: string, windowMs: number, results: readonly AttemptResult[]): Promise<void> {
  if (results.length === 0) return;
  const rows = results.map(
    (r) => sql`(${r.deliveryId.toString()}::bigint, ${r.merchantId}::uuid, ${r.eventId}::uuid, ${r.attempt}::int, ${r.manual}::boolean, ${r.startedAt.toISOString()}::timestamptz,
      ${r.latencyMs}::int, ${r.responseStatus}::int, ${r.error}::text, ${r.delivered}::boolean, ${r.permanent}::boolean, ${r.retryDelayMs}::bigint)`,
  );
  await sql`
    with r (delivery_id, merchant_id, event_id, attempt, manual, started_at, latency_ms, response_status, error, delivered, permanent, retry_delay_ms) as (
      values ${sql.join(rows)}
    ),
    updated as (
      update webhook_deliveries d set
        status = case
          when r.delivered then 'DELIVERED'
          when r.permanent or d.window_started_at + ${`${windowMs} milliseconds`}::interval <= now() then 'FAILED'
          else 'PENDING' end,
        backoff_step = case when r.delivered then 0 else d.backoff_step + 1 end,
        next_attempt_at = case when r.delivered then d.next_attempt_at else now() + r.retry_delay_ms * interval '1 millisecond' end,
        delivered_at = case when r.delivered then now() else d.delivered_at end,
        failed_at = case when not r.delivered and (r.permanent or d.window_started_at + ${`${windowMs} milliseconds`}::interval <= now()) then now() else null end,
        last_attempt_at = r.started_at,
        last_response_status = r.response_status,
        last_error = r.error,
        manual_retry = false,
        locked_by = null,
        locked_until = null
      from r
      -- The id list repeats the join so that the primary key finds the rows whatever the planner's
      -- statistics say (PGlite keeps none until analysed), instead of a scan of every delivery.
      where d.id = any(${results.map((r) => r.deliveryId.toString())}::bigint[]) and d.id = r.delivery_id and d.locked_by = ${workerId}
      returning d.id, d.status
    )
    insert into webhook_attempts (delivery_id, merchant_id, event_id, attempt, manual, worker_id, started_at, latency_ms, response_status, error, outcome)
    select r.delivery_id, r.merchant_id, r.event_id, r.attempt, r.manual, ${workerId}, r.started_at, r.latency_ms, r.response_status, r.error,
      case coalesce(u.status, case when r.delivered then 'DELIVERED' else 'PENDING' end)
        when 'DELIVERED' then 'DELIVERED' when 'FAILED' then 'FAILED' else 'RETRY' end
    from r left join updated u on u.id = r.delivery_id`.execute(db);
}
