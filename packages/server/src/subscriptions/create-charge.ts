import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import { ApiError, type ErrorKey } from '../http/errors';
import type { Currency } from '../lib/currencies';
import type { PaymentRow } from '../payments/payment-record';
import { isIsoDate } from '../rails/calendar';
import { checkAmount } from './amount';
import { announceCharge, attemptCharge, insertCharge, type ChargeRow } from './charge-record';
import { MAX_CHARGE_DAYS_BEHIND, MAX_DAYS_AHEAD, attemptDate, isWithinWindow, merchantToday } from './schedule';
import type { CreateChargeInput } from './schemas';
import { assertSubscriptionStatus, type SubscriptionStatus } from './states';
import { findSubscription, lockSubscription } from './subscription-record';

/** The statuses a subscription can be charged in: a PAST_DUE one still is. */
const CHARGEABLE: readonly SubscriptionStatus[] = ['ACTIVE', 'PAST_DUE'];

/**
 * `POST /subscriptions/<subscription_id>/charge` (spec, Create subscription charge), in phases:
 * find the subscription (another merchant's is not found) → check the fields, every failing rule at
 * once → check the subscription's status → under its row lock, store the charge for its due date
 * (409 when that date already has one) and create its card payment → announce it.
 *
 * The due date, moved to a business day when force_work_day (the request's, else the
 * subscription's) says so, is when the charge is attempted: today or earlier, the payment goes to the
 * processor at once (PROCESSING, as the spec shows); a later date leaves it CREATED until that day
 * on the merchant clock.
 * @example const { charge, payment } = await createCharge(ctx, merchantId, subscriptionId, body);
 */
export async function createCharge(
  ctx: AppContext,
  merchantId: string,
  subscriptionId: string,
  input: CreateChargeInput,
): Promise<{ charge: ChargeRow; payment: PaymentRow }> {
  const subscription = await findSubscription(ctx.db, merchantId, subscriptionId);
  if (!subscription) throw new ApiError('NOT_FOUND', 'subscription_id: subscription not found.');
  const now = await merchantNow(ctx.db, merchantId);
  const today = merchantToday(now);

  const failures: { key: ErrorKey; description: string }[] = [];
  const fail = (key: ErrorKey, description: string) => failures.push({ key, description });
  if (!isIsoDate(input.due_date)) {
    fail('SUBSCRIPTION_DATE_INVALID', 'due_date: must be a real calendar date written YYYY-MM-DD.');
  } else if (!isWithinWindow(input.due_date, today, MAX_CHARGE_DAYS_BEHIND, MAX_DAYS_AHEAD)) {
    fail('SUBSCRIPTION_DATE_OUT_OF_RANGE', 'due_date: must be at most 1 year back and 5 years ahead on the merchant clock.');
  }
  let money: { minor: bigint; currency: Currency } | undefined;
  if (subscription.amount_type === 'VARIABLE') {
    if (input.amount === undefined || input.asset === undefined) {
      fail('CHARGE_AMOUNT_REQUIRED', `${input.amount === undefined ? 'amount' : 'asset'}: is required to charge a VARIABLE subscription.`);
    } else {
      money = await checkAmount(ctx.db, input.amount, input.asset, fail);
    }
  } else if (input.amount !== undefined || input.asset !== undefined) {
    fail('CHARGE_AMOUNT_NOT_ALLOWED', `${input.amount !== undefined ? 'amount' : 'asset'}: is not accepted when charging a FIXED subscription; its own amount applies.`);
  } else if (subscription.amount_minor !== null && subscription.currency !== null) {
    money = { minor: subscription.amount_minor, currency: subscription.currency as Currency };
  }
  if (failures.length > 0 || !money) throw ApiError.fields(failures);
  assertSubscriptionStatus(subscription.status, CHARGEABLE, 'charge');

  const forceWorkDay = input.force_work_day ?? subscription.force_work_day;
  const dueDate = attemptDate(input.due_date, forceWorkDay);
  const amount = money;
  const result = await ctx.db.transaction().execute(async (trx) => {
    const locked = await lockSubscription(trx, subscription.id, { merchantId });
    if (!locked) throw new ApiError('NOT_FOUND', 'subscription_id: subscription not found.');
    // Canceled between the check above and the lock: the locked row is the truth.
    assertSubscriptionStatus(locked.status, CHARGEABLE, 'charge');
    const charge = await insertCharge(trx, locked, {
      period: null,
      requested_date: input.due_date,
      due_date: dueDate,
      force_work_day: forceWorkDay,
      reference_id: input.reference_id ?? locked.reference_id ?? locked.id,
      amount_minor: amount.minor,
      currency: amount.currency,
      created_at: now,
    });
    if (!charge) throw new ApiError('CHARGE_DUE_DATE_TAKEN', `due_date: the subscription already has a charge on ${dueDate}.`);
    const attempted = await attemptCharge(trx, locked, charge, now, dueDate <= today);
    await announceCharge(trx, locked, attempted.charge);
    return attempted;
  });
  ctx.workerSignal.poke();
  return result;
}
