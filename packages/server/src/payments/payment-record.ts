import { sql, type Selectable } from 'kysely';
import type { Db } from '../db/database';
import { eventInsertFrom, type NewEvent } from '../events/outbox';
import { journalRows, ledgerInsertFrom, type JournalInput } from '../ledger/ledger';
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
 * Moves a payment to a new status: the row, its history line and its `payment.status_changed` event,
 * and the ledger journals given, in one statement (so one round trip, atomic by itself). The
 * caller holds the row lock (lockPayment) and has checked the move (states.ts).
 * @example await changeStatus(trx, payment, 'PAID', now, { captured_minor: payment.amount_minor });
 */
export async function changeStatus(
  db: Db,
  payment: PaymentRow,
  status: PaymentStatus,
  at: Date,
  patch: StatusPatch = {},
  journals?: (updated: PaymentRow) => readonly JournalInput[],
): Promise<PaymentRow> {
  const updated = await writeStatusChange(db, payment, status, at, patch, journals);
  if (!updated) throw new Error(`payment ${payment.payment_token} vanished during a status change`);
  return updated;
}

/**
 * Like changeStatus, but without a row lock: the change applies only if the payment is still in
 * `from` when the statement runs; otherwise nothing is written and the answer is undefined. The
 * processor job settles PROCESSING payments this way, in one round trip.
 * @example const paid = await changeStatusIf(db, 'PROCESSING', payment, 'PAID', now, patch, (row) => [captureJournal(row, now)]);
 */
export function changeStatusIf(
  db: Db,
  from: PaymentStatus,
  payment: PaymentRow,
  status: PaymentStatus,
  at: Date,
  patch: StatusPatch = {},
  journals?: (updated: PaymentRow) => readonly JournalInput[],
): Promise<PaymentRow | undefined> {
  return writeStatusChange(db, payment, status, at, patch, journals, from);
}

type StatusPatch = Partial<Omit<PaymentRow, 'payment_token' | 'created_at'>>;

/**
 * The status change as one statement of data-modifying CTEs: the history line, the event and the
 * journal are inserted from the `updated` row, so they exist exactly when the update happened. The
 * event and journal are computed beforehand from the row as it will be (payment + patch).
 */
async function writeStatusChange(
  db: Db,
  payment: PaymentRow,
  status: PaymentStatus,
  at: Date,
  patch: StatusPatch,
  journals: ((updated: PaymentRow) => readonly JournalInput[]) | undefined,
  from?: PaymentStatus,
): Promise<PaymentRow | undefined> {
  const stamp = STATUS_TIMESTAMPS[status];
  const changes = { ...patch, status, updated_at: at, ...(stamp ? { [stamp]: at } : {}) };
  const expected: PaymentRow = { ...payment, ...changes };
  const lines = (journals?.(expected) ?? []).flatMap(journalRows);
  const update = db
    .updateTable('payments')
    .set(changes)
    .where('payment_token', '=', payment.payment_token)
    .$if(from !== undefined, (qb) => qb.where('status', '=', from as PaymentStatus))
    .returningAll();
  const { rows } = await sql<PaymentRow>`
    with updated as (${update}),
    history as (
      insert into payment_status_history (payment_token, status, at)
      select payment_token, status, updated_at from updated
    ),
    event as (${eventInsertFrom('updated', paymentEvent(expected))}),
    ledger as (${ledgerInsertFrom('updated', lines)})
    select * from updated`.execute(db);
  return rows[0];
}

/** Ledger: the journal of money held (1n) or released (-1n) by a pre-authorisation (memo accounts). */
export function holdJournal(payment: PaymentRow, at: Date, direction: 1n | -1n, kind: string): JournalInput {
  const held = customerAmount(payment) * direction;
  return {
    merchantId: payment.merchant_id,
    kind,
    currency: payment.currency,
    resourceId: payment.payment_token,
    at,
    lines: [
      { account: 'card_authorizations', amountMinor: held },
      { account: 'authorizations_outstanding', amountMinor: -held },
    ],
  };
}

/** Ledger: a capture. The processor owes what the customer paid; the merchant is owed it less merchant fees. */
export function captureJournal(payment: PaymentRow, at: Date): JournalInput {
  const customerPaid = payment.captured_minor + payment.customer_fees_minor;
  return {
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
  };
}

/** The `payment.status_changed` event of a payment as it now is. */
export function paymentEvent(payment: EventFields): NewEvent {
  return {
    merchantId: payment.merchant_id,
    type: 'payment.status_changed',
    resourceType: 'payment',
    resourceId: payment.payment_token,
    data: paymentEventData(payment),
    notificationUrls: [payment.notification_url],
  };
}

type EventFields = Pick<
  PaymentRow,
  | 'payment_token'
  | 'merchant_id'
  | 'notification_url'
  | 'reference_id'
  | 'status'
  | 'method'
  | 'amount_minor'
  | 'currency'
  | 'customer_fees_minor'
  | 'captured_minor'
  | 'refunded_minor'
  | 'error_code'
  | 'error_description'
>;

/** The callback payload of a payment (docs/callbacks.md). */
export function paymentEventData(payment: EventFields): Record<string, unknown> {
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
