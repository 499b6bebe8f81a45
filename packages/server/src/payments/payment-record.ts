import type { Selectable } from 'kysely';
import type { Db } from '../db/database';
import { recordEvent } from '../events/outbox';
import { postJournal } from '../ledger/ledger';
import { CURRENCY_EXPONENTS, toJsonNumber, type Currency } from '../lib/money';
import type { PaymentsTable } from './tables';
import type { PaymentStatus } from './states';

export type PaymentRow = Selectable<PaymentsTable>;

/**
 * Loads a merchant's payment and locks its row for the rest of the transaction, so two requests
 * racing on one payment (captures, cancels, refunds) are serialised and the second sees the first's
 * result. Another merchant's payment, or a malformed token, is simply not found.
 * @example const payment = await lockPayment(trx, merchantId, token);
 */
export async function lockPayment(trx: Db, merchantId: string, paymentToken: string): Promise<PaymentRow | undefined> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(paymentToken)) return undefined;
  return trx
    .selectFrom('payments')
    .selectAll()
    .where('payment_token', '=', paymentToken)
    .where('merchant_id', '=', merchantId)
    .forUpdate()
    .executeTakeFirst();
}

/** The timestamp column each status stamps, so every terminal state has its own time. */
const STATUS_TIMESTAMPS: Partial<Record<PaymentStatus, 'pre_authorized_at' | 'paid_at' | 'canceled_at' | 'failed_at'>> = {
  PRE_AUTHORIZED: 'pre_authorized_at',
  PAID: 'paid_at',
  CANCELED: 'canceled_at',
  EXPIRED: 'canceled_at',
  DECLINED: 'failed_at',
  ERROR: 'failed_at',
};

/**
 * Moves a payment to a new status in the caller's transaction: the row, its history line and its
 * `payment.status_changed` event, together. The caller has checked the move (states.ts).
 * @example await changeStatus(trx, payment, 'PAID', now, { captured_minor: payment.amount_minor });
 */
export async function changeStatus(
  trx: Db,
  payment: PaymentRow,
  status: PaymentStatus,
  at: Date,
  patch: Partial<Omit<PaymentRow, 'payment_token' | 'created_at'>> = {},
): Promise<PaymentRow> {
  const stamp = STATUS_TIMESTAMPS[status];
  const updated = await trx
    .updateTable('payments')
    .set({ ...patch, status, updated_at: at, ...(stamp ? { [stamp]: at } : {}) })
    .where('payment_token', '=', payment.payment_token)
    .returningAll()
    .executeTakeFirstOrThrow();
  await trx.insertInto('payment_status_history').values({ payment_token: payment.payment_token, status, at }).execute();
  await recordEvent(trx, {
    merchantId: payment.merchant_id,
    type: 'payment.status_changed',
    resourceType: 'payment',
    resourceId: payment.payment_token,
    data: paymentEventData(updated),
    notificationUrls: [payment.notification_url],
  });
  return updated;
}

/** The callback payload of a payment (docs/callbacks.md). */
export function paymentEventData(payment: PaymentRow): Record<string, unknown> {
  const exponent = exponentOf(payment.currency);
  return {
    payment_token: payment.payment_token,
    reference_id: payment.reference_id,
    status: payment.status,
    method: payment.method,
    amount: toJsonNumber(payment.amount_minor, exponent),
    asset: payment.currency,
    customer_amount: toJsonNumber(payment.amount_minor + payment.customer_fees_minor, exponent),
    captured_amount: toJsonNumber(payment.captured_minor, exponent),
    refunded_amount: toJsonNumber(payment.refunded_minor, exponent),
    error_code: payment.error_code,
    error_description: payment.error_description,
  };
}

export function exponentOf(currency: string): number {
  return CURRENCY_EXPONENTS[currency as Currency] ?? 2;
}

/** What the customer is charged: the amount plus customer fees. */
export function customerAmount(payment: Pick<PaymentRow, 'amount_minor' | 'customer_fees_minor'>): bigint {
  return payment.amount_minor + payment.customer_fees_minor;
}

/** Ledger: money held by a pre-authorisation (memo accounts). */
export function postHold(trx: Db, payment: PaymentRow, at: Date, direction: 1n | -1n, kind: string) {
  const held = customerAmount(payment) * direction;
  return postJournal(trx, {
    merchantId: payment.merchant_id,
    kind,
    currency: payment.currency,
    resourceId: payment.payment_token,
    at,
    lines: [
      { account: 'card_authorizations', amountMinor: held },
      { account: 'authorizations_outstanding', amountMinor: -held },
    ],
  });
}

/** Ledger: a capture. The processor owes what the customer paid; the merchant is owed it less merchant fees. */
export function postCapture(trx: Db, payment: PaymentRow, at: Date) {
  const customerPaid = payment.captured_minor + payment.customer_fees_minor;
  return postJournal(trx, {
    merchantId: payment.merchant_id,
    kind: 'capture',
    currency: payment.currency,
    resourceId: payment.payment_token,
    at,
    lines: [
      { account: 'processor_receivable', amountMinor: customerPaid },
      { account: 'merchant_payable', amountMinor: -(payment.captured_minor - payment.merchant_fees_minor) },
      { account: 'fee_revenue', amountMinor: -(payment.merchant_fees_minor + payment.customer_fees_minor) },
    ],
  });
}
