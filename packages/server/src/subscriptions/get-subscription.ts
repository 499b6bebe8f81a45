import type { AppContext } from '../context';
import { ApiError } from '../http/errors';
import { findSubscription, type SubscriptionRow } from './subscription-record';

/**
 * `GET /subscriptions/<id>`: the merchant's subscription; another merchant's is not found (404).
 * @example const subscription = await getSubscription(ctx, merchantId, id);
 */
export async function getSubscription(ctx: AppContext, merchantId: string, subscriptionId: string): Promise<SubscriptionRow> {
  const subscription = await findSubscription(ctx.db, merchantId, subscriptionId);
  if (!subscription) throw new ApiError('NOT_FOUND', 'subscription_id: subscription not found.');
  return subscription;
}
