import { sql } from 'kysely';
import type { Db } from '../db/database';
import { ProcessorPendingError, type OperationResult } from '../processor/processor';
import type { KnownOutcome } from './connector';

/**
 * A connector's books: what it knows of each operation by Colibri's reference, from the provider's
 * answers and notifications. A settled outcome (APPROVED, DECLINED, ERROR) is never overwritten, so a
 * late or repeated PENDING answer, or a notification that arrives after another, cannot undo it: the
 * first settled outcome wins, whatever order the provider's messages arrive in. The key carries the
 * merchant, so one merchant's answer can never settle another's operation of the same reference.
 */
export async function recordOutcome(
  db: Db,
  entry: { connector: string; merchantId: string; reference: string; providerReference: string | null; outcome: KnownOutcome },
): Promise<KnownOutcome> {
  const { rows } = await sql<{ result: KnownOutcome }>`
    insert into connector_operations (connector, reference, merchant_id, provider_reference, result, updated_at)
    values (${entry.connector}, ${entry.reference}, ${entry.merchantId}, ${entry.providerReference}, ${JSON.stringify(entry.outcome)}::jsonb, now())
    on conflict (connector, reference, merchant_id) do update
      set result = excluded.result,
          provider_reference = coalesce(excluded.provider_reference, connector_operations.provider_reference),
          updated_at = now()
      where connector_operations.result->>'status' = 'PENDING'
    returning result`.execute(db);
  if (rows[0]) return rows[0].result;
  return (await readOutcome(db, entry.connector, entry.merchantId, entry.reference)) ?? entry.outcome;
}

export async function readOutcome(db: Db, connector: string, merchantId: string, reference: string): Promise<KnownOutcome | null> {
  const row = await db
    .selectFrom('connector_operations')
    .select('result')
    .where('connector', '=', connector)
    .where('reference', '=', reference)
    .where('merchant_id', '=', merchantId)
    .executeTakeFirst();
  return row ? (row.result as KnownOutcome) : null;
}

/**
 * The contract's answer for a known outcome: the result itself, or ProcessorPendingError while the
 * provider has not settled it (the caller asks again later).
 */
export function settledOrPending(operation: string, outcome: KnownOutcome): OperationResult {
  if (outcome.status === 'PENDING') throw new ProcessorPendingError(operation);
  return outcome;
}

/**
 * Records a provider notification once: true the first time its key is seen, false for a duplicate.
 */
export async function firstDelivery(db: Db, connector: string, key: string, payload: unknown): Promise<boolean> {
  const inserted = await db
    .insertInto('connector_notifications')
    .values({ connector, notification_key: key, payload: JSON.stringify(payload) })
    .onConflict((oc) => oc.doNothing())
    .returning('notification_key')
    .executeTakeFirst();
  return inserted !== undefined;
}

/**
 * After a notification settled an operation, the job waiting on it (retrying with backoff while the
 * outcome was pending) runs now instead of at its next retry. Jobs are matched by the resource their
 * payload names: a payment's processing job by `paymentToken`, a refund's settlement by `refundId`.
 */
export async function wakeWaitingJobs(db: Db, match: { paymentToken?: string; refundId?: string }): Promise<void> {
  const conditions = [];
  if (match.paymentToken) conditions.push(sql`payload->>'paymentToken' = ${match.paymentToken}`);
  if (match.refundId) conditions.push(sql`payload->>'refundId' = ${match.refundId}`);
  if (conditions.length === 0) return;
  await sql`
    update jobs set run_at = now()
    where failed_at is null and run_at > now() and (${sql.join(conditions, sql` or `)})`.execute(db);
}
