import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import { ApiError } from '../http/errors';
import { changeStatus } from '../payments/payment-record';
import { changeChargeStatus, isWaitingPayment } from './charge-record';
import { assertSubscriptionStatus } from './states';
import { changeSubscriptionStatus, lockSubscription, type SubscriptionRow } from './subscription-record';

/**
 * `POST /subscriptions/<id>/cancel`: under the subscription's row lock, the subscription turns
 * CANCELED (no further period is scheduled) and every charge still waiting (for its due date or for a
 * retry) is CANCELED, with its payment when that was never sent. An attempt already with the processor
 * cannot be called back: its charge settles with the payment's outcome, PAID or CANCELED, and is never retried.
 * @example const canceled = await cancelSubscription(ctx, merchantId, id);
 */
export async function cancelSubscription(ctx: AppContext, merchantId: string, subscriptionId: string): Promise<SubscriptionRow> {
  const now = await merchantNow(ctx.db, merchantId);
  return ctx.db.transaction().execute(async (trx) => {
    const subscription = await lockSubscription(trx, subscriptionId, { merchantId });
    if (!subscription) throw new ApiError('NOT_FOUND', 'subscription_id: subscription not found.');
    assertSubscriptionStatus(subscription.status, ['ACTIVE', 'PAST_DUE'], 'cancel');
    const canceled = await changeSubscriptionStatus(trx, subscription, 'CANCELED', now);
    const waiting = await trx
      .selectFrom('subscription_charges')
      .selectAll()
      .where('subscription_id', '=', subscription.id)
      .where('status', '=', 'PENDING')
      .where('next_attempt_on', 'is not', null)
      .forUpdate()
      .execute();
    for (const charge of waiting) {
      const payment = charge.payment_token
        ? await trx.selectFrom('payments').selectAll().where('payment_token', '=', charge.payment_token).forUpdate().executeTakeFirst()
        : undefined;
      // A payment still waiting for its due date never reached the processor, so it is canceled here.
      if (isWaitingPayment(charge, payment)) await changeStatus(trx, payment, 'CANCELED', now);
      await changeChargeStatus(trx, canceled, charge, 'CANCELED', now);
    }
    return canceled;
  });
}
