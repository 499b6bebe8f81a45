import type { AppContext } from '../context';
import { ApiError } from '../http/errors';
import { presentCharge } from './charge-record';
import { findSubscription } from './subscription-record';

/**
 * `GET /subscriptions/<id>/charges?page&size`: the subscription's charges by due date, each with the
 * status of its latest transaction; another merchant's subscription is not found (404).
 * @example const { content, total } = await listCharges(ctx, merchantId, id, { page: 0, size: 20 });
 */
export async function listCharges(ctx: AppContext, merchantId: string, subscriptionId: string, page: { page: number; size: number }) {
  const subscription = await findSubscription(ctx.db, merchantId, subscriptionId);
  if (!subscription) throw new ApiError('NOT_FOUND', 'subscription_id: subscription not found.');
  const base = ctx.db.selectFrom('subscription_charges as c').where('c.subscription_id', '=', subscription.id);
  const [rows, count] = await Promise.all([
    base
      .leftJoin('payments as p', 'p.payment_token', 'c.payment_token')
      .selectAll('c')
      .select('p.status as transaction_status')
      .orderBy('c.due_date')
      .orderBy('c.id')
      .limit(page.size)
      .offset(page.page * page.size)
      .execute(),
    base.select((eb) => eb.fn.countAll<string | number | bigint>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { content: rows.map(({ transaction_status, ...charge }) => presentCharge(charge, transaction_status)), total: Number(count.n) };
}
