import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import { changeChargeStatus, scheduleRetry } from './charge-record';
import { retryDate } from './schedule';
import { changeSubscriptionStatus, lockSubscription } from './subscription-record';

const SETTLE_BATCH = 500;

/** The payment statuses that end an attempt: PAID pays the charge, the others fail the attempt. */
const FINAL_PAYMENT_STATUSES = ['PAID', 'DECLINED', 'ERROR', 'CANCELED', 'EXPIRED'] as const;

/**
 * Carries each finished attempt over to its charge. A paid payment pays the charge (and brings a
 * PAST_DUE subscription back to ACTIVE); a failed one schedules the next retry (RETRY_OFFSETS_DAYS),
 * or, with no retry left, fails the charge and makes the subscription PAST_DUE. A charge of a canceled
 * subscription is canceled instead of retried.
 *
 * The payment domain settles payments on its own (process-payment.ts); this pass reads their outcome
 * rather than being called from there, so subscriptions add nothing to the payment path. The cost is
 * that a charge follows its payment by up to one sweep.
 * @example await settleCharges(ctx);
 */
export async function settleCharges(ctx: AppContext): Promise<number> {
  const finished = await ctx.db
    .selectFrom('subscription_charges')
    .innerJoin('payments', 'payments.payment_token', 'subscription_charges.payment_token')
    .select(['subscription_charges.id', 'subscription_charges.subscription_id'])
    .where('subscription_charges.status', '=', 'PENDING')
    .where('subscription_charges.next_attempt_on', 'is', null)
    .where('payments.status', 'in', FINAL_PAYMENT_STATUSES)
    .limit(SETTLE_BATCH)
    .execute();
  let settled = 0;
  for (const candidate of finished) {
    settled += await ctx.db.transaction().execute(async (trx) => {
      const subscription = await lockSubscription(trx, candidate.subscription_id, { skipLocked: true });
      if (!subscription) return 0;
      const charge = await trx.selectFrom('subscription_charges').selectAll().where('id', '=', candidate.id).forUpdate().executeTakeFirst();
      if (!charge || charge.status !== 'PENDING' || charge.next_attempt_on !== null || !charge.payment_token) return 0;
      const payment = await trx.selectFrom('payments').selectAll().where('payment_token', '=', charge.payment_token).executeTakeFirstOrThrow();
      const now = await merchantNow(trx, subscription.merchant_id);
      if (payment.status === 'PAID') {
        await changeChargeStatus(trx, subscription, charge, 'PAID', now, { error_code: null, error_description: null });
        if (subscription.status === 'PAST_DUE') await changeSubscriptionStatus(trx, subscription, 'ACTIVE', now);
        return 1;
      }
      if (!(FINAL_PAYMENT_STATUSES as readonly string[]).includes(payment.status)) return 0;
      const failure = { error_code: payment.error_code, error_description: payment.error_description };
      if (subscription.status === 'CANCELED') {
        await changeChargeStatus(trx, subscription, charge, 'CANCELED', now, failure);
        return 1;
      }
      const next = charge.first_attempt_on ? retryDate(charge.first_attempt_on, charge.attempts, charge.force_work_day) : null;
      if (next) {
        await scheduleRetry(trx, charge, next, payment, now);
        return 1;
      }
      await changeChargeStatus(trx, subscription, charge, 'FAILED', now, failure);
      // A subscription already PAST_DUE (an earlier charge failed too) stays so.
      if (subscription.status === 'ACTIVE') await changeSubscriptionStatus(trx, subscription, 'PAST_DUE', now);
      return 1;
    });
  }
  return settled;
}
