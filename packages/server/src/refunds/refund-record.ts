import type { Selectable } from 'kysely';
import type { Db } from '../db/database';
import { recordEvent } from '../events/outbox';
import { toJsonNumber } from '../lib/money';
import { allowedFrom, assertMove, movedMeanwhile, stampOf } from '../lib/state-machine';
import { exponentOf } from '../lib/currencies';
import { formatDateTimeMillis } from '../lib/time-format';
import type { RefundsTable } from '../db/tables/refunds';
import { REFUND_STATES, type RefundStatus } from './states';

export type RefundRow = Selectable<RefundsTable>;

/**
 * Moves a refund in the caller's transaction: the move is checked against the state table
 * (refunds/states.ts), then the row is updated where its status still allows the move, with its
 * status's timestamp, its history line and its `refund.status_changed` event. A move the table refuses
 * throws IllegalMoveError (409) before anything is written.
 * @example await changeRefundStatus(trx, refund, 'COMPLETED', now);
 */
export async function changeRefundStatus(
  trx: Db,
  refund: RefundRow,
  status: RefundStatus,
  at: Date,
  patch: Partial<Omit<RefundRow, 'refund_id' | 'created_at'>> = {},
): Promise<RefundRow> {
  assertMove(REFUND_STATES, refund.status, status);
  const updated = await trx
    .updateTable('refunds')
    .set({ ...patch, status, updated_at: at, ...stampOf(REFUND_STATES, status, at, refund) })
    .where('refund_id', '=', refund.refund_id)
    .where('status', 'in', allowedFrom(REFUND_STATES, status))
    .returningAll()
    .executeTakeFirst();
  if (!updated) throw movedMeanwhile(REFUND_STATES, refund.status, status);
  await trx.insertInto('refund_status_history').values({ refund_id: refund.refund_id, merchant_id: refund.merchant_id, status, at }).execute();
  await announce(trx, updated);
  return updated;
}

/**
 * Writes the refund's `refund.status_changed` event for its current status. Its data carry the
 * payment's `reference_id` (the contract's Callbacks section), read in the same transaction: a
 * payment's reference never changes, so the refund does not keep a copy of it.
 */
export async function announce(trx: Db, refund: RefundRow): Promise<void> {
  const payment = await trx.selectFrom('payments').select('reference_id').where('payment_token', '=', refund.payment_token).executeTakeFirstOrThrow();
  await recordEvent(trx, {
    merchantId: refund.merchant_id,
    type: 'refund.status_changed',
    resourceType: 'refund',
    resourceId: String(refund.refund_id),
    data: { ...refundView(refund), reference_id: payment.reference_id },
    notificationUrls: [refund.notification_url],
  });
}

/** The refund as the API and callbacks show it (transaction details lists them the same way). */
export function refundView(
  refund: Pick<RefundRow, 'refund_id' | 'payment_token' | 'created_at' | 'status' | 'amount_minor' | 'currency' | 'error_code' | 'error_description'>,
) {
  return {
    refund_id: Number(refund.refund_id),
    payment_token: refund.payment_token,
    created_at: formatDateTimeMillis(refund.created_at),
    refund_status: refund.status,
    amount: toJsonNumber(refund.amount_minor, exponentOf(refund.currency)),
    currency: refund.currency,
    error_code: refund.error_code,
    error_description: refund.error_description,
  };
}
