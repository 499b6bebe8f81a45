import { sql } from 'kysely';
import type { Db } from '../db/database';
import { ProcessorPendingError, type OperationResult } from '../processor/processor';
import { runJobNow } from '../jobs/queue';
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
 * outcome was pending) runs now instead of at its next retry. Every job that carries a processor
 * operation is enqueued under the operation's reference as its unique key (a card operation's, a
 * refund's), so the job is found by the reference the notification names, never by reading payloads.
 * @example await wakeWaitingJob(db, `${paymentToken}:capture:${operationId}`);
 */
export async function wakeWaitingJob(db: Db, reference: string): Promise<void> {
  await runJobNow(db, reference);
}
