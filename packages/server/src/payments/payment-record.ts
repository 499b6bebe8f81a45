import { sql, type Selectable, type Updateable } from 'kysely';
import type { Db } from '../db/database';
import { recordEvent, type NewEvent } from '../events/outbox';
import { enqueueMany } from '../jobs/queue';
import { postJournals, type JournalInput } from '../ledger/ledger';
import { availabilityParts, type AvailabilityMethod } from '../fees/availability';
import type { AppliedFee, PaymentFeeRules } from '../fees/fee-plan';
import { toJsonNumber } from '../lib/money';
import { exponentOf } from '../lib/currencies';
import { isoTime } from '../lib/time-format';
import type { FeeLine, PaymentsTable, StatusHistoryLine } from '../db/tables/payments';
import { allowedFrom, assertMove, movedMeanwhile, stampOf } from '../lib/state-machine';
import { paymentFollowUps } from './payment-followups';
import { PAYMENT_STATES, UNCHARGED_STATUSES, type PaymentStatus } from './states';
import { isUuid } from '../lib/identifiers';

export type PaymentRow = Selectable<PaymentsTable>;

/**
 * Loads a merchant's payment and locks its row for the rest of the transaction, so two requests
 * racing on one payment (captures, cancels, refunds) are serialised and the second sees the first's
 * result. Another merchant's payment, or a malformed token, is simply not found.
 * @example const payment = await lockPayment(trx, merchantId, token);
 */
export async function lockPayment(trx: Db, merchantId: string, paymentToken: string): Promise<PaymentRow | undefined> {
  if (!isUuid(paymentToken)) return undefined;
  return trx
    .selectFrom('payments')
    .selectAll()
    .where('payment_token', '=', paymentToken)
    .where('merchant_id', '=', merchantId)
    .forUpdate()
    .executeTakeFirst();
}

/** What a status change may also set: the columns an update can write (not created_at, nor the generated ones), but the key. */
type StatusPatch = Omit<Updateable<PaymentsTable>, 'payment_token'>;

/** The journals of a status change, computed from the row as it is after the change. */
export type StatusJournals = (updated: PaymentRow) => readonly JournalInput[];

/**
 * Moves a payment to a new status, in the caller's transaction (which holds the row lock, see
 * lockPayment): the move is checked against the state table (payments/states.ts), then the row is
 * updated where its status still allows the move, with its history line, its `payment.status_changed`
 * event, its follow-up jobs (payment-followups.ts) and the journals given. A move into DECLINED or ERROR
 * drops the fees, which were never charged.
 * A move the table refuses throws IllegalMoveError (409) before anything is written. Without a
 * transaction, it runs in one of its own: all of it is written, or none.
 * @example await changeStatus(trx, payment, 'PAID', now, { captured_minor: payment.amount_minor }, (row) => [captureJournal(row, now)]);
 */
export async function changeStatus(db: Db, payment: PaymentRow, status: PaymentStatus, at: Date, patch: StatusPatch = {}, journals?: StatusJournals): Promise<PaymentRow> {
  assertMove(PAYMENT_STATES, payment.status, status);
  if (!db.isTransaction) return db.transaction().execute((trx) => changeStatus(trx, payment, status, at, patch, journals));
  const uncharged = UNCHARGED_STATUSES.includes(status);
  const updated = await db
    .updateTable('payments')
    .set({
      ...patch,
      ...(uncharged ? { merchant_fees_minor: 0n, customer_fees_minor: 0n, fee_lines: '[]' } : {}),
      status,
      updated_at: at,
      status_history: sql<string>`status_history || ${JSON.stringify([historyLine(status, at)])}::jsonb`,
      ...stampOf(PAYMENT_STATES, status, at, payment),
    })
    .where('payment_token', '=', payment.payment_token)
    .where('status', 'in', allowedFrom(PAYMENT_STATES, status))
    .returningAll()
    .executeTakeFirst();
  if (!updated) throw movedMeanwhile(PAYMENT_STATES, payment.status, status);
  await recordEvent(db, paymentEvent(updated));
  await enqueueMany(db, paymentFollowUps(updated));
  const lines = journals?.(updated) ?? [];
  if (lines.length > 0) await postJournals(db, lines);
  return updated;
}

/**
 * A line of a payment's status history (payments.status_history, migration 0048), written with the move.
 * @example historyLine('PAID', now) // { status: 'PAID', at: '2026-11-28T16:20:00.000Z' }
 */
export function historyLine(status: string, at: Date): StatusHistoryLine {
  return { status, at: isoTime(at) };
}

/**
 * A payment's fee lines as its row keeps them (payments.fee_lines, migration 0048).
 * @example feeLines(breakdown.fees) // [{ fee_type: 'SERVICE_FEE', payer: 'MERCHANT', amount_minor: '120' }]
 */
export function feeLines(fees: readonly AppliedFee[]): FeeLine[] {
  return fees.map((f) => ({ fee_type: f.type, payer: f.payer, amount_minor: f.amountMinor.toString() }));
}

/** Ledger: the journal of money held (1n) or released (-1n) by a pre-authorisation (memo accounts). */
export function holdJournal(payment: Pick<PaymentRow, 'merchant_id' | 'payment_token' | 'currency' | 'amount_minor' | 'customer_fees_minor'>, at: Date, direction: 1n | -1n, kind: string): JournalInput {
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

/**
 * Ledger: a capture. The processor owes what the customer paid; the merchant is owed it less merchant
 * fees, in parts that become available on the days of the availability schedule the payment keeps
 * (fees/availability.ts: one part per installment of a credit card, and a rolling reserve held in
 * `reserve_held`). Each part is a PAYMENT balance transaction showing its share of the merchant fees.
 */
export function captureJournal(
  payment: Pick<PaymentRow, 'merchant_id' | 'payment_token' | 'currency' | 'method' | 'installments' | 'fee_rules' | 'captured_minor' | 'customer_fees_minor' | 'merchant_fees_minor'>,
  at: Date,
): JournalInput {
  const customerPaid = payment.captured_minor + payment.customer_fees_minor;
  const rules = (payment.fee_rules ?? {}) as Partial<PaymentFeeRules>;
  const parts = availabilityParts(rules.availability ?? {}, {
    method: payment.method as AvailabilityMethod,
    installments: payment.installments ?? 1,
    paidAt: at,
    grossMinor: payment.captured_minor,
    feeMinor: payment.merchant_fees_minor,
    netMinor: payment.captured_minor - payment.merchant_fees_minor,
  });
  return {
    merchantId: payment.merchant_id,
    kind: 'capture',
    currency: payment.currency,
    resourceId: payment.payment_token,
    at,
    balance: { type: 'PAYMENT', sourceId: payment.payment_token },
    lines: [
      { account: 'processor_receivable', amountMinor: customerPaid },
      ...parts.map((part) => ({ account: part.reserve ? ('reserve_held' as const) : ('merchant_payable' as const), amountMinor: -part.netMinor, availableOn: part.availableOn, feeMinor: part.feeMinor })),
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

/** What the customer is charged: the amount plus customer fees. */
export function customerAmount(payment: Pick<PaymentRow, 'amount_minor' | 'customer_fees_minor'>): bigint {
  return payment.amount_minor + payment.customer_fees_minor;
}
