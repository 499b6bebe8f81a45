import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import { announceCharge, attemptCharge, insertCharge } from './charge-record';
import { merchantTodaySql } from './merchant-today-sql';
import { MAX_CATCH_UP_PERIODS, merchantToday, nominalDueDate, scheduledDueDate } from './schedule';
import { lockSubscription } from './subscription-record';

/** How many subscriptions one scheduler pass looks at; the rest wait for the next pass. */
const SCHEDULE_BATCH = 500;

/**
 * The scheduler of FIXED subscriptions, run by every worker process on every sweep: each subscription
 * whose next due date has come on its merchant's clock gets that period's charge, attempted at once.
 * @example const charged = await scheduleDueCharges(ctx);
 */
export async function scheduleDueCharges(ctx: AppContext): Promise<number> {
  const due = await ctx.db
    .selectFrom('subscriptions')
    .innerJoin('merchants', 'merchants.id', 'subscriptions.merchant_id')
    .select('subscriptions.id')
    .where('subscriptions.amount_type', '=', 'FIXED')
    .where('subscriptions.status', '<>', 'CANCELED')
    .where('subscriptions.next_due_date', '<=', merchantTodaySql)
    .orderBy('subscriptions.next_due_date')
    .limit(SCHEDULE_BATCH)
    .execute();
  let charged = 0;
  for (const { id } of due) charged += await scheduleSubscription(ctx, id);
  return charged;
}

/**
 * Charges every period of one FIXED subscription that is due and not yet charged, in one transaction
 * under the subscription's row lock, and moves its schedule on. Why this never charges a due date
 * twice, with any number of processes and restarts:
 * - the row lock (`for update skip locked`) lets one worker at a time work on a subscription, and the
 *   others skip it instead of waiting;
 * - the period's charge, its payment and job, and the schedule's move to the next period commit
 *   together or not at all, so a crash leaves either all of it or none, and a restart redoes exactly
 *   what is missing;
 * - the unique constraints on (subscription_id, due_date) and (subscription_id, period) refuse a
 *   second charge even if all of the above were bypassed; a period whose due date already has a
 *   charge (one made through the charge endpoint) is skipped, not charged again.
 * @example await scheduleSubscription(ctx, subscriptionId);
 */
export async function scheduleSubscription(ctx: AppContext, subscriptionId: string): Promise<number> {
  const charged = await ctx.db.transaction().execute(async (trx) => {
    const subscription = await lockSubscription(trx, subscriptionId, { skipLocked: true });
    if (!subscription || subscription.status === 'CANCELED' || subscription.amount_type !== 'FIXED') return 0;
    if (subscription.amount_minor === null || subscription.currency === null) return 0;
    const now = await merchantNow(trx, subscription.merchant_id);
    const today = merchantToday(now);
    let period = subscription.next_period;
    let created = 0;
    for (let step = 0; step < MAX_CATCH_UP_PERIODS && scheduledDueDate(subscription, period) <= today; step += 1) {
      const charge = await insertCharge(trx, subscription, {
        period,
        requested_date: nominalDueDate(subscription.first_due_date, subscription.billing_interval, period),
        due_date: scheduledDueDate(subscription, period),
        force_work_day: subscription.force_work_day,
        reference_id: subscription.reference_id ?? subscription.id,
        amount_minor: subscription.amount_minor,
        currency: subscription.currency,
        created_at: now,
      });
      if (charge) {
        const attempted = await attemptCharge(trx, subscription, charge, now, true);
        await announceCharge(trx, subscription, attempted.charge);
        created += 1;
      }
      period += 1;
    }
    if (period !== subscription.next_period) {
      await trx
        .updateTable('subscriptions')
        .set({ next_period: period, next_due_date: scheduledDueDate(subscription, period), updated_at: now })
        .where('id', '=', subscription.id)
        .execute();
    }
    return created;
  });
  if (charged > 0) ctx.workerSignal.poke();
  return charged;
}
