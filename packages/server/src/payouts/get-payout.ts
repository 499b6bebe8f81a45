import type { AppContext } from '../context';
import { ApiError } from '../http/errors';
import { payoutItem, type PayoutItem } from './payout-record';
import { isUuid } from '../lib/identifiers';

/** A payout as `GET /payoutTransaction/<tx_id>` shows it: the response item and, once refused, why. */
export interface PayoutView extends PayoutItem {
  error_code?: string;
  error_description?: string;
}

/**
 * One of the merchant's payouts with its current status. Another merchant's payout, like one that
 * does not exist, is "not found": the answer never tells a merchant that someone else's tx_id exists.
 * @example const payout = await getPayout(ctx, merchantId, txId); // payout.status === 'PAID'
 */
export async function getPayout(ctx: AppContext, merchantId: string, txId: string): Promise<PayoutView> {
  const payout = isUuid(txId)
    ? await ctx.db.selectFrom('payouts').selectAll().where('tx_id', '=', txId).where('merchant_id', '=', merchantId).executeTakeFirst()
    : undefined;
  if (!payout) throw new ApiError('NOT_FOUND', 'tx_id: no payout with this tx_id.');
  return {
    ...payoutItem(payout),
    ...(payout.error_code === null ? {} : { error_code: payout.error_code }),
    ...(payout.error_description === null ? {} : { error_description: payout.error_description }),
  };
}
