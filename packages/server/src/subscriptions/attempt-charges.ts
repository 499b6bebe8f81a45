import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import { announceCharge, attemptCharge, changeChargeStatus, isWaitingPayment, startWaitingAttempt } from './charge-record';
import { merchantTodaySql } from './merchant-today-sql';
import { merchantToday } from './schedule';
import { lockSubscription } from './subscription-record';

const ATTEMPT_BATCH = 500;

/**
 * Starts every attempt that has come due on its merchant's clock: a charge made ahead of its due date
 * (its waiting payment goes to the processor) and a retry of a declined charge (a new payment). Each
 * runs under the subscription's and then the charge's row lock and re-checks the charge, so workers
 * racing on one charge start one attempt; the (charge, attempt) primary key backs that up.
 * @example await attemptDueCharges(ctx);
 */
export async function attemptDueCharges(ctx: AppContext): Promise<number> {
  const due = await ctx.db
    .selectFrom('subscription_charges')
    .innerJoin('merchants', 'merchants.id', 'subscription_charges.merchant_id')
    .select(['subscription_charges.id', 'subscription_charges.subscription_id'])
    .where('subscription_charges.status', '=', 'PENDING')
    .where('subscription_charges.next_attempt_on', '<=', merchantTodaySql)
    .orderBy('subscription_charges.next_attempt_on')
    .limit(ATTEMPT_BATCH)
    .execute();
  let started = 0;
  for (const candidate of due) {
    started += await ctx.db.transaction().execute(async (trx) => {
      const subscription = await lockSubscription(trx, candidate.subscription_id, { skipLocked: true });
      if (!subscription) return 0;
      const charge = await trx.selectFrom('subscription_charges').selectAll().where('id', '=', candidate.id).forUpdate().executeTakeFirst();
      const now = await merchantNow(trx, subscription.merchant_id);
      if (!charge || charge.status !== 'PENDING' || charge.next_attempt_on === null || charge.next_attempt_on > merchantToday(now)) return 0;
      if (subscription.status === 'CANCELED') {
        await changeChargeStatus(trx, subscription, charge, 'CANCELED', now);
        return 0;
      }
      const waiting = charge.payment_token
        ? await trx.selectFrom('payments').selectAll().where('payment_token', '=', charge.payment_token).executeTakeFirst()
        : undefined;
      if (isWaitingPayment(charge, waiting)) {
        await startWaitingAttempt(trx, charge, waiting, now);
      } else {
        const retried = await attemptCharge(trx, subscription, charge, now, true);
        // A retry changes no status, but its new transaction is worth a callback with the same status.
        await announceCharge(trx, subscription, retried.charge);
      }
      return 1;
    });
  }
  if (started > 0) ctx.workerSignal.poke();
  return started;
}
