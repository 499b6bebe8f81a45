import type { Types } from '@adyen/api-library';
import type { AppContext } from '../../context';
import { ApiError } from '../../http/errors';
import { firstDelivery, recordOutcome, wakeWaitingJob } from '../operations';
import { translateNotification } from './adyen-codes';
import { AdyenConnector } from './adyen-connector';
import { isUuid } from '../../lib/identifiers';

type NotificationItem = Types.notification.NotificationRequestItem;

/**
 * Applies a batch of Adyen standard notifications (`POST /connectors/adyen/notifications`):
 * 1. every item must verify with the HMAC key of the Adyen account it names (the instance's or a
 *    merchant's own); one that does not refuses the whole batch and nothing is applied;
 * 2. each item is applied once: its key (pspReference, eventCode, success) is recorded in the same
 *    transaction as its outcome, so a duplicate delivery is a no-op;
 * 3. its outcome is recorded under Colibri's reference (`merchantReference`) unless a settled outcome
 *    is already there, so an older or repeated message never undoes a newer one;
 * 4. the job waiting on that reference (a payment's processing or a refund's settlement) runs now.
 * Adyen expects the literal answer `[accepted]`.
 */
export async function applyAdyenNotifications(ctx: AppContext, items: readonly NotificationItem[]): Promise<{ applied: number; duplicates: number }> {
  const connectors = [...ctx.connectors.instanceConnectors(), ...(await ctx.connectors.merchantConnectorsOf('adyen'))].filter(
    (c): c is AdyenConnector => c instanceof AdyenConnector,
  );
  for (const item of items) {
    if (!connectors.some((connector) => connector.verifiesNotification(item))) {
      throw new ApiError('CONNECTOR_SIGNATURE_INVALID', `notificationItems: the item ${item.pspReference} of account ${item.merchantAccountCode} does not verify.`);
    }
  }
  let applied = 0;
  let duplicates = 0;
  for (const item of items) {
    const reference = item.merchantReference ?? '';
    const paymentToken = reference.slice(0, 36);
    const payment = isUuid(paymentToken)
      ? await ctx.db.selectFrom('payments').select(['merchant_id']).where('payment_token', '=', paymentToken).executeTakeFirst()
      : undefined;
    const outcome = translateNotification(item);
    const first = await ctx.db.transaction().execute(async (trx) => {
      const isFirst = await firstDelivery(trx, 'adyen', `${item.pspReference}:${item.eventCode}:${item.success}`, item);
      // Events Colibri does not act on (reports, chargebacks) and references that are not its payments
      // are kept as delivered and otherwise ignored.
      if (isFirst && outcome && payment) {
        await recordOutcome(trx, { connector: 'adyen', merchantId: payment.merchant_id, reference, providerReference: item.pspReference, outcome });
      }
      return isFirst;
    });
    if (!first) {
      duplicates += 1;
      continue;
    }
    applied += 1;
    if (outcome && payment) await wakeWaitingJob(ctx.db, reference);
  }
  ctx.workerSignal.poke();
  return { applied, duplicates };
}
