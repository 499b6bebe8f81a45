import type { Selectable } from 'kysely';
import type { Db } from '../db/database';
import { recordEvent } from '../events/outbox';
import { toJsonNumber } from '../lib/money';
import { allowedFrom, assertMove, movedMeanwhile, stampOf } from '../lib/state-machine';
import { exponentOf } from '../lib/currencies';
import { formatDateTimeMillis } from '../lib/time-format';
import type { RefundsTable } from '../db/tables/refunds';
import { changeStatus, type PaymentRow } from '../payments/payment-record';
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
 * Records a refund the processor made without Colibri asking for it (a MED devolução: the Banco Central
 * returned a PIX to its payer), in the caller's transaction, under the payment's row lock (lockPayment):
 * the refund COMPLETED when the processor paid it back, its history line and its `refund.status_changed`
 * event, and the payment's refunded amount and status (PARTIALLY_REFUNDED or REFUNDED), so that what can
 * still be refunded or disputed counts it. No settlement job (it is settled) and no journal: the caller
 * moves the money (a MED dispute's journals did: docs/disputes.md, "MED").
 * @example const refund = await recordProcessorRefund(trx, payment, { amountMinor: 4000n, processorId: rtrId, completedAt }, now);
 */
export async function recordProcessorRefund(trx: Db, payment: PaymentRow, input: { amountMinor: bigint; processorId: string; completedAt: Date }, at: Date): Promise<RefundRow> {
  const refund = await trx
    .insertInto('refunds')
    .values({
      payment_token: payment.payment_token,
      merchant_id: payment.merchant_id,
      amount_minor: input.amountMinor,
      currency: payment.currency,
      status: 'COMPLETED',
      notification_url: payment.notification_url,
      destination: null,
      processor_id: input.processorId,
      error_code: null,
      error_description: null,
      created_at: input.completedAt,
      updated_at: at,
      completed_at: input.completedAt,
      failed_at: null,
      idempotency_key: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await trx.insertInto('refund_status_history').values({ refund_id: refund.refund_id, merchant_id: refund.merchant_id, status: 'COMPLETED', at: input.completedAt }).execute();
  await announce(trx, refund);
  await addRefunded(trx, payment, input.amountMinor, at);
  return refund;
}

/**
 * A completed refund's amount added to the payment's refunded amount, which makes it REFUNDED once the
 * customer has all of it back (captured plus customer fees) and PARTIALLY_REFUNDED before.
 * @example await addRefunded(trx, payment, 1500n, now);
 */
export async function addRefunded(trx: Db, payment: PaymentRow, amountMinor: bigint, at: Date): Promise<PaymentRow> {
  const refunded = payment.refunded_minor + amountMinor;
  const total = payment.captured_minor + payment.customer_fees_minor;
  return changeStatus(trx, payment, refunded >= total ? 'REFUNDED' : 'PARTIALLY_REFUNDED', at, { refunded_minor: refunded });
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
