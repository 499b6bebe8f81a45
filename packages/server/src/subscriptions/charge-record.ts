import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../db/database';
import { recordEvent } from '../events/outbox';
import { computeFees, loadFeePlan } from '../fees/fee-plan';
import { convert } from '../fees/fx';
import { toJsonNumber } from '../lib/money';
import type { Currency } from '../lib/currencies';
import { formatDateTime } from '../lib/time-format';
import { type PaymentRow } from '../payments/payment-record';
import { exponentOf } from '../lib/currencies';
import { createPayment, quotedPrice } from '../payments/create-payment';
import { sendWaitingPayment, startCardPayment } from '../payments/send-payment';
import { merchantToday } from './schedule';
import { allowedFrom, assertMove, movedMeanwhile, stampOf } from '../lib/state-machine';
import { CHARGE_STATES, type ChargeStatus } from './states';
import type { SubscriptionRow } from './subscription-record';
import type { SubscriptionChargesTable } from '../db/tables/subscriptions';

export type ChargeRow = Selectable<SubscriptionChargesTable>;

/**
 * Stores a PENDING charge in the caller's transaction. A charge already on that due date (or schedule
 * period) wins: nothing is stored and undefined is returned, which is how one due date is never
 * charged twice. The caller attempts it and then announces it (announceCharge).
 * @example const charge = await insertCharge(trx, subscription, { period: 3, requested_date, due_date, … });
 */
export async function insertCharge(
  trx: Db,
  subscription: Pick<SubscriptionRow, 'id' | 'merchant_id'>,
  values: Omit<Insertable<SubscriptionChargesTable>, 'subscription_id' | 'merchant_id' | 'status' | 'updated_at'>,
): Promise<ChargeRow | undefined> {
  const charge = await trx
    .insertInto('subscription_charges')
    .values({ ...values, subscription_id: subscription.id, merchant_id: subscription.merchant_id, status: 'PENDING', updated_at: values.created_at })
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();
  return charge;
}

/**
 * Creates the card payment of a charge's next attempt, in the caller's transaction (which holds the
 * subscription's lock). With `start` the payment goes to the processor now and the attempt is
 * counted; without it the payment waits for the due date (see startWaitingAttempt), already PROCESSING
 * as the spec shows a charge's transaction at creation, but not yet sent to the processor. Each
 * attempt is priced when its payment is created: the stored FX rate and the merchant's fee plan of
 * that moment, like any card payment.
 * @example const { charge, payment } = await attemptCharge(trx, subscription, charge, now, true);
 */
export async function attemptCharge(
  trx: Db,
  subscription: SubscriptionRow,
  charge: ChargeRow,
  now: Date,
  start: boolean,
): Promise<{ charge: ChargeRow; payment: PaymentRow }> {
  const quote = await convert(trx, charge.amount_minor, charge.currency as Currency, 'BRL');
  const plan = await loadFeePlan(trx, subscription.merchant_id);
  const fees = computeFees(plan.payments, quote.convertedMinor, { installments: 1, installmentInterestPpm: plan.installment_interest_ppm });
  const merchant = await trx.selectFrom('merchants').select('contract_id').where('id', '=', subscription.merchant_id).executeTakeFirstOrThrow();
  const payment = await createPayment(trx, {
    merchantId: subscription.merchant_id,
    contractId: merchant.contract_id,
    referenceId: charge.reference_id,
    method: 'CREDITCARD',
    personId: subscription.person_id,
    cardId: subscription.card_id,
    originalMinor: charge.amount_minor,
    originalCurrency: charge.currency as Currency,
    price: quotedPrice(quote),
    plan,
    fees,
    installments: 1,
    delayCapture: false,
    softDescriptor: null,
    extraData: { subscription_id: subscription.id, charge_id: charge.id },
    ipAddress: null,
    notificationUrl: subscription.notification_url,
    authentication: undefined,
    subscriptionId: subscription.id,
    now,
    start: start ? 'authorize' : 'hold',
  });
  if (!start) {
    const waiting = await updateCharge(trx, charge, { payment_token: payment.payment_token, next_attempt_on: charge.due_date }, now);
    return { charge: waiting, payment };
  }
  return { charge: await countAttempt(trx, charge, payment, now), payment };
}

/**
 * Whether a charge's payment is still waiting for the due date: stored by attemptCharge without
 * `start`, never sent, so no attempt counts it. Such a payment is PROCESSING (CREATED when an earlier
 * version of Colibri stored it) and may still be canceled with its charge.
 * @example if (isWaitingPayment(charge, payment)) await startWaitingAttempt(trx, charge, payment, now);
 */
export function isWaitingPayment(charge: Pick<ChargeRow, 'attempts' | 'payment_token'>, payment: Pick<PaymentRow, 'payment_token' | 'status'> | undefined): payment is PaymentRow {
  if (!payment || charge.attempts !== 0 || charge.payment_token !== payment.payment_token) return false;
  return payment.status === 'PROCESSING' || payment.status === 'CREATED';
}

/**
 * Sends the waiting payment of a charge whose due date has come (see isWaitingPayment).
 * @example await startWaitingAttempt(trx, charge, waitingPayment, now);
 */
export async function startWaitingAttempt(trx: Db, charge: ChargeRow, payment: PaymentRow, now: Date): Promise<ChargeRow> {
  const processing = payment.status === 'CREATED' ? await startCardPayment(trx, payment, now) : await sendWaitingPayment(trx, payment, now);
  return countAttempt(trx, charge, processing, now);
}

async function countAttempt(trx: Db, charge: ChargeRow, payment: PaymentRow, now: Date): Promise<ChargeRow> {
  const attempt = charge.attempts + 1;
  const today = merchantToday(now);
  // The primary key (charge, attempt) refuses a second payment for one attempt, whatever happens above.
  await trx.insertInto('subscription_charge_attempts').values({ charge_id: charge.id, merchant_id: charge.merchant_id, attempt, payment_token: payment.payment_token, attempted_on: today }).execute();
  return updateCharge(trx, charge, { payment_token: payment.payment_token, attempts: attempt, first_attempt_on: charge.first_attempt_on ?? today, next_attempt_on: null }, now);
}

function updateCharge(trx: Db, charge: ChargeRow, patch: Partial<Omit<ChargeRow, 'id' | 'created_at'>>, now: Date): Promise<ChargeRow> {
  return trx.updateTable('subscription_charges').set({ ...patch, updated_at: now }).where('id', '=', charge.id).returningAll().executeTakeFirstOrThrow();
}

/**
 * Moves a charge to a final status with its status's time and its event, in the caller's transaction
 * (which holds the charge's lock). A move the state table (subscriptions/states.ts) does not allow
 * throws IllegalMoveError before anything is written.
 * @example await changeChargeStatus(trx, subscription, charge, 'PAID', now);
 */
export async function changeChargeStatus(
  trx: Db,
  subscription: SubscriptionRow,
  charge: ChargeRow,
  to: ChargeStatus,
  now: Date,
  patch: Partial<Pick<ChargeRow, 'error_code' | 'error_description'>> = {},
): Promise<ChargeRow> {
  assertMove(CHARGE_STATES, charge.status, to);
  const moved = await trx
    .updateTable('subscription_charges')
    .set({ ...patch, status: to, next_attempt_on: null, updated_at: now, ...stampOf(CHARGE_STATES, to, now, charge) })
    .where('id', '=', charge.id)
    .where('status', 'in', allowedFrom(CHARGE_STATES, to))
    .returningAll()
    .executeTakeFirst();
  if (!moved) throw movedMeanwhile(CHARGE_STATES, charge.status, to);
  await announceCharge(trx, subscription, moved);
  return moved;
}

/**
 * Records a retry: the charge stays PENDING (no status change, so no event) with its next attempt date.
 * @example await scheduleRetry(trx, charge, '2026-03-03', payment, now);
 */
export function scheduleRetry(trx: Db, charge: ChargeRow, nextAttemptOn: string, failed: PaymentRow, now: Date): Promise<ChargeRow> {
  return updateCharge(trx, charge, { next_attempt_on: nextAttemptOn, error_code: failed.error_code, error_description: failed.error_description }, now);
}

/**
 * Records the charge's `subscription_charge.status_changed` event with its current status, in the
 * caller's transaction (the outbox): on creation (PENDING, with its first payment) and on every move.
 * @example await announceCharge(trx, subscription, charge);
 */
export function announceCharge(trx: Db, subscription: SubscriptionRow, charge: ChargeRow) {
  return recordEvent(trx, {
    merchantId: charge.merchant_id,
    type: 'subscription_charge.status_changed',
    resourceType: 'subscription_charge',
    resourceId: charge.id,
    data: {
      charge_id: charge.id,
      subscription_id: charge.subscription_id,
      reference_id: charge.reference_id,
      status: charge.status,
      due_date: charge.due_date,
      amount: toJsonNumber(charge.amount_minor, exponentOf(charge.currency)),
      asset: charge.currency,
      transaction_id: charge.payment_token,
      attempts: charge.attempts,
      error_code: charge.error_code,
      error_description: charge.error_description,
    },
    notificationUrls: [subscription.notification_url],
  });
}

/**
 * A charge as GET /subscriptions/<id>/charges lists it.
 * @example presentCharge(charge, 'PAID')
 */
export function presentCharge(charge: ChargeRow, transactionStatus: string | null) {
  const stamp = (date: Date | null) => (date ? formatDateTime(date) : null);
  return {
    charge_id: charge.id,
    subscription_id: charge.subscription_id,
    reference_id: charge.reference_id,
    status: charge.status,
    due_date: charge.due_date,
    requested_due_date: charge.requested_date,
    automatic: charge.period !== null,
    amount: toJsonNumber(charge.amount_minor, exponentOf(charge.currency)),
    asset: charge.currency,
    transaction_id: charge.payment_token,
    transaction_status: transactionStatus,
    attempts: charge.attempts,
    next_attempt_on: charge.next_attempt_on,
    error_code: charge.error_code,
    error_description: charge.error_description,
    created_at: formatDateTime(charge.created_at),
    paid_at: stamp(charge.paid_at),
    failed_at: stamp(charge.failed_at),
    canceled_at: stamp(charge.canceled_at),
  };
}
