import { sql } from 'kysely';
import type { AppContext } from '../context';
import type { Db } from '../db/database';
import { attemptOutcome, ProcessorPendingError, type OperationResult } from '../processor/processor';
import { processorReference } from './payout-record';

/**
 * A payout's hand-over to its connector, as a record with its own state (migration 0037-payout-dispatches):
 * SENDING while the payout job sends it, ACCEPTED once the provider took it to settle later, SETTLED once
 * its outcome was applied. The payout itself stays PROCESSING until then; this record is what a read-back,
 * a notification or a restarted worker finds, so an accepted payout is never lost and never sent twice.
 */

/** The first read-back of an accepted payout comes this long after it was accepted, then each twice as late. */
export const PAYOUT_RECHECK_FIRST_MS = 30_000;
/** Read-backs of a payout the provider keeps pending are never further apart than this. */
export const PAYOUT_RECHECK_MAX_MS = 3_600_000;
/** Accepted payouts read back in one pass of the periodic task. */
const RECHECK_BATCH = 50;

/** The delay before the next read-back after `checks` earlier ones. @example recheckDelayMs(0) // 30000 */
export function recheckDelayMs(checks: number): number {
  return Math.min(PAYOUT_RECHECK_MAX_MS, PAYOUT_RECHECK_FIRST_MS * 2 ** Math.min(checks, 20));
}

/** Opens the dispatch (SENDING) in the caller's transaction, the one that moves the payout to PROCESSING. */
export async function openDispatch(trx: Db, payout: { tx_id: string; merchant_id: string }, connector: string, at: Date): Promise<void> {
  await trx
    .insertInto('payout_dispatches')
    .values({ tx_id: payout.tx_id, merchant_id: payout.merchant_id, connector, reference: processorReference(payout.tx_id), status: 'SENDING', sending_at: at })
    .onConflict((oc) => oc.columns(['tx_id', 'merchant_id']).doNothing())
    .execute();
}

/** The provider accepted the payout and settles it later: the job is done, the read-back takes over. */
export async function markAccepted(db: Db, payout: { tx_id: string; merchant_id: string }): Promise<void> {
  await db
    .updateTable('payout_dispatches')
    .set({ status: 'ACCEPTED', accepted_at: sql<Date>`now()`, next_check_at: sql<Date>`now() + ${`${PAYOUT_RECHECK_FIRST_MS} milliseconds`}::interval` })
    .where('tx_id', '=', payout.tx_id)
    .where('merchant_id', '=', payout.merchant_id)
    .where('status', '=', 'SENDING')
    .execute();
}

/** The payout's outcome was applied (in the caller's transaction). */
export async function markSettled(trx: Db, payout: { tx_id: string; merchant_id: string }, providerId: string | null, returned = false): Promise<void> {
  await trx
    .updateTable('payout_dispatches')
    .set({
      status: 'SETTLED',
      settled_at: sql<Date>`coalesce(settled_at, now())`,
      next_check_at: null,
      ...(providerId ? { provider_id: providerId } : {}),
      ...(returned ? { returned_at: sql<Date>`now()` } : {}),
    })
    .where('tx_id', '=', payout.tx_id)
    .where('merchant_id', '=', payout.merchant_id)
    .execute();
}

/**
 * One pass of the read-back of accepted payouts (a periodic task of every worker process): the dispatches
 * whose check is due are claimed (their next check pushed back, so two processes never read the same one
 * at once), then each is asked of its connector by reference. A final answer settles the payout through
 * `settle`; a pending one, or a provider that cannot answer now, is asked again later, each time twice as
 * late up to an hour; a payout the provider says it never received goes back to the payout job, which
 * sends it again under the same reference. Answers the number of payouts settled.
 * @example await recheckAcceptedPayouts(ctx, settlePayout);
 */
export async function recheckAcceptedPayouts(
  ctx: AppContext,
  settle: (txId: string, result: OperationResult) => Promise<void>,
  requeue: (trx: Db, txId: string) => Promise<void>,
): Promise<number> {
  const claimed = await ctx.db.transaction().execute(async (trx) => {
    const due = await trx
      .selectFrom('payout_dispatches')
      .select(['tx_id', 'merchant_id', 'reference', 'checks'])
      .where('status', '=', 'ACCEPTED')
      .where('next_check_at', '<=', sql<Date>`now()`)
      .orderBy('next_check_at')
      .limit(RECHECK_BATCH)
      .forUpdate()
      .skipLocked()
      .execute();
    for (const row of due) await pushBack(trx, row);
    return due;
  });
  let settled = 0;
  let unexpected: unknown;
  for (const row of claimed) {
    let result: OperationResult | null;
    try {
      result = await ctx.processor.status(row.merchant_id, row.reference, 'PAYOUT');
    } catch (error) {
      // Still pending, or the provider cannot answer now: its check was pushed back already.
      if (error instanceof ProcessorPendingError || attemptOutcome(error)) continue;
      unexpected ??= error;
      continue;
    }
    if (result) {
      await settle(row.tx_id, result);
      settled += 1;
      continue;
    }
    // Accepted once, unknown now: hand it back to the payout job, which asks again and sends only if still unknown.
    await ctx.db.transaction().execute(async (trx) => {
      await trx.updateTable('payout_dispatches').set({ status: 'SENDING', next_check_at: null }).where('tx_id', '=', row.tx_id).where('merchant_id', '=', row.merchant_id).where('status', '=', 'ACCEPTED').execute();
      await requeue(trx, row.tx_id);
    });
    ctx.workerSignal.poke();
  }
  // Anything else is a bug: the other payouts were still read back, and the task's runner logs it.
  if (unexpected !== undefined) throw unexpected;
  return settled;
}

async function pushBack(trx: Db, row: { tx_id: string; merchant_id: string; checks: number }): Promise<void> {
  await trx
    .updateTable('payout_dispatches')
    .set({ checks: row.checks + 1, next_check_at: sql<Date>`now() + ${`${recheckDelayMs(row.checks + 1)} milliseconds`}::interval` })
    .where('tx_id', '=', row.tx_id)
    .where('merchant_id', '=', row.merchant_id)
    .execute();
}
