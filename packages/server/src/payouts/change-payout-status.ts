import type { Db } from '../db/database';
import { recordEvent } from '../events/outbox';
import { postJournal, type JournalLine } from '../ledger/ledger';
import { payoutEventData, payoutPaidLines, payoutReturnLines, payoutReversalLines, type PayoutRecord } from './payout-record';
import { allowedFrom, assertMove, movedMeanwhile, stampOf } from '../lib/state-machine';
import { PAYOUT_STATES, type PayoutStatus } from './states';

/** What a status change may record beside the status: the processor's id, or its reason for refusing. */
export interface PayoutStatusPatch {
  readonly processor_id?: string;
  readonly error_code?: string;
  readonly error_description?: string;
}

/** The journal each status writes, if any; CREATED's is written with the batch (create-payouts.ts). */
const STATUS_JOURNALS: Partial<Record<PayoutStatus, (payout: PayoutRecord, at: Date) => JournalLine[]>> = {
  PAID: payoutPaidLines,
  REJECTED: payoutReversalLines,
  CANCELED: payoutReversalLines,
};

/**
 * Moves a payout to a new status in the caller's transaction, which must hold the payout's row lock
 * (`lockPayout`): the row with its status timestamp, a history line, the `payout.status_changed`
 * event and the status's ledger journal are written together or not at all. A move the state table
 * (payouts/states.ts) does not allow throws IllegalMoveError before anything is written: a 409 in a
 * request, a logged refusal in the job worker.
 * @example
 * await ctx.db.transaction().execute(async (trx) => {
 *   const payout = await lockPayout(trx, txId);
 *   if (payout) await changePayoutStatus(trx, payout, 'PAID', now, { processor_id: 'sim_…' });
 * });
 */
export async function changePayoutStatus(
  trx: Db,
  payout: PayoutRecord,
  status: PayoutStatus,
  at: Date,
  patch: PayoutStatusPatch = {},
): Promise<PayoutRecord> {
  assertMove(PAYOUT_STATES, payout.status, status);
  const updated = await trx
    .updateTable('payouts')
    .set({ ...patch, status, updated_at: at, ...stampOf(PAYOUT_STATES, status, at, payout) })
    .where('tx_id', '=', payout.tx_id)
    .where('status', 'in', allowedFrom(PAYOUT_STATES, status))
    .returningAll()
    .executeTakeFirst();
  if (!updated) throw movedMeanwhile(PAYOUT_STATES, payout.status, status);
  await trx
    .insertInto('payout_status_history')
    .values({ tx_id: payout.tx_id, merchant_id: payout.merchant_id, status, previous_status: payout.status, error_code: patch.error_code ?? null, at })
    .execute();
  await recordEvent(trx, {
    merchantId: payout.merchant_id,
    type: 'payout.status_changed',
    resourceType: 'payout',
    resourceId: payout.tx_id,
    data: payoutEventData(updated),
    notificationUrls: [payout.notification_url],
  });
  // A return (PAID → REJECTED) undoes both journals the payout wrote: its creation and its payment.
  const returned = payout.status === 'PAID';
  const lines = returned ? payoutReturnLines(updated, at) : STATUS_JOURNALS[status]?.(updated, at);
  if (lines) {
    await postJournal(trx, {
      merchantId: payout.merchant_id,
      kind: returned ? 'payout.returned' : `payout.${status.toLowerCase()}`,
      currency: payout.currency,
      resourceId: payout.tx_id,
      at,
      balance: { type: 'PAYOUT', sourceId: payout.tx_id },
      lines,
    });
  }
  return updated;
}
