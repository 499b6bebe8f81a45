import type { AppContext } from '../context';
import type { PageQueryInput } from './schemas';
import type { SubscriptionRow } from './subscription-record';

/**
 * `GET /subscriptions?page&size&status`: the merchant's subscriptions, newest first, one page (size at
 * most MAX_PAGE_SIZE, enforced by the schema) with the total count.
 * @example const { rows, total } = await listSubscriptions(ctx, merchantId, { page: 0, size: 20 });
 */
export async function listSubscriptions(ctx: AppContext, merchantId: string, query: PageQueryInput): Promise<{ rows: SubscriptionRow[]; total: number }> {
  let base = ctx.db.selectFrom('subscriptions').where('merchant_id', '=', merchantId);
  if (query.status) base = base.where('status', '=', query.status);
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(query.size).offset(query.page * query.size).execute(),
    base.select((eb) => eb.fn.countAll<string | number | bigint>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}
