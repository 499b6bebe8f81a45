import type { ExpressionBuilder } from 'kysely';
import type { Db } from '../db/database';
import type { Database } from '../db/schema';

/**
 * Operations that need a person: jobs past their deadline whose outcome is unknown (the processor may
 * have acted; Colibri keeps asking it, at least every 5 minutes), and jobs that failed every attempt.
 * Neither is retried silently forever, and neither is forgotten: they are listed here and counted in
 * the `colibri_stuck_operations` metric until they settle.
 */
export interface StuckOperation {
  job_id: string;
  kind: string;
  /** The resource the job works on: a payment token, a refund id, a payout's tx id or a settlement id. */
  resource_id: string | null;
  /** The payment operation the job carries (payments/operations.ts), for a card payment's job. */
  operation_id: string | null;
  attempts: number;
  outcome_unknown: boolean;
  stuck_since: string | null;
  failed_at: string | null;
  last_error: string | null;
  created_at: string;
  next_attempt_at: string;
}

/** Past the deadline with an unknown outcome, or failed on every attempt: the jobs this module lists and counts. */
const needsAttention = (eb: ExpressionBuilder<Database, 'jobs'>) => eb.or([eb('stuck_since', 'is not', null), eb('failed_at', 'is not', null)]);

/** An id the job payload names; payloads may carry one-time secrets (a CAVV), so only ids leave it. */
function idOf(payload: unknown, key: 'operationId' | 'refundId' | 'txId' | 'settlementId'): string | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const id = (payload as Record<string, unknown>)[key];
  return typeof id === 'string' ? id : null;
}

/** @example const stuck = await listStuckOperations(db, 100); */
export async function listStuckOperations(db: Db, limit: number): Promise<StuckOperation[]> {
  const rows = await db
    .selectFrom('jobs')
    .select(['id', 'kind', 'payload', 'attempts', 'outcome_unknown', 'stuck_since', 'failed_at', 'last_error', 'created_at', 'run_at'])
    .where(needsAttention)
    .orderBy('created_at')
    .limit(limit)
    .execute();
  const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());
  // A card payment's job carries its operation: the resource shown is the operation's payment.
  const operationIds = rows.map((row) => idOf(row.payload, 'operationId')).filter((id): id is string => id !== null);
  const operations = operationIds.length === 0 ? [] : await db.selectFrom('payment_operations').select(['id', 'payment_token']).where('id', 'in', operationIds).execute();
  const paymentOf = new Map(operations.map((o) => [o.id, o.payment_token]));
  return rows.map((row) => ({
    job_id: String(row.id),
    kind: row.kind,
    resource_id: paymentOf.get(idOf(row.payload, 'operationId') ?? '') ?? idOf(row.payload, 'refundId') ?? idOf(row.payload, 'txId') ?? idOf(row.payload, 'settlementId'),
    operation_id: idOf(row.payload, 'operationId'),
    attempts: row.attempts,
    outcome_unknown: row.outcome_unknown,
    stuck_since: iso(row.stuck_since),
    failed_at: iso(row.failed_at),
    last_error: row.last_error,
    created_at: new Date(row.created_at).toISOString(),
    next_attempt_at: new Date(row.run_at).toISOString(),
  }));
}

/** How many jobs need attention now (the `colibri_stuck_operations` gauge). @example await countStuckOperations(db) // 0 */
export async function countStuckOperations(db: Db): Promise<number> {
  const row = await db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where(needsAttention)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
