import type { Types } from '@adyen/api-library';
import type { AppContext } from '../../context';
import { ApiError } from '../../http/errors';
import type { PaymentMethodName } from '../../processor/processor';
import { recordDisputeNotice, type DisputeNotice } from '../dispute-notices';
import { firstDelivery, recordOutcome, wakeWaitingJob } from '../operations';
import { translateNotification } from './adyen-codes';
import { AdyenConnector } from './adyen-connector';
import { adyenDisputeEvent, translateDisputeNotification } from './adyen-disputes';
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
 * 4. the job waiting on that reference (a payment's processing or a refund's settlement) runs now;
 * 5. a dispute event (adyen-disputes.ts) is translated into dispute notices, kept in the same
 *    transaction as its delivery and applied by the disputes domain's job, in Adyen's order. Its
 *    payment is found by `merchantReference` (`<payment_token>:authorize`) or, failing that, by
 *    `originalReference` (the disputed payment's pspReference); the item must verify with the
 *    instance's Adyen account or the one that serves the payment's merchant, so no merchant's own
 *    account can report disputes on another's payments.
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
    const payment = await paymentOf(ctx, reference.slice(0, 36));
    const outcome = translateNotification(item);
    const disputed = adyenDisputeEvent(item.eventCode) ? (payment ?? (await paymentOf(ctx, await tokenOfPspReference(ctx, item.originalReference)))) : undefined;
    const notices = disputed ? await disputeNotices(ctx, item, disputed) : [];
    const first = await ctx.db.transaction().execute(async (trx) => {
      const isFirst = await firstDelivery(trx, 'adyen', `${item.pspReference}:${item.eventCode}:${item.success}`, item);
      // Events Colibri does not act on (reports) and references that are not its payments are kept as
      // delivered and otherwise ignored.
      if (isFirst && outcome && payment) {
        await recordOutcome(trx, { connector: 'adyen', merchantId: payment.merchant_id, reference, providerReference: item.pspReference, outcome });
      }
      if (isFirst) for (const notice of notices) await recordDisputeNotice(trx, notice);
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

type PaymentRef = { merchant_id: string; payment_token: string; method: string };

async function paymentOf(ctx: AppContext, paymentToken: string | undefined): Promise<PaymentRef | undefined> {
  if (!paymentToken || !isUuid(paymentToken)) return undefined;
  return ctx.db.selectFrom('payments').select(['merchant_id', 'payment_token', 'method']).where('payment_token', '=', paymentToken).executeTakeFirst();
}

/** The payment token of an operation Adyen knows by this pspReference (the connector's books). */
async function tokenOfPspReference(ctx: AppContext, pspReference: string | undefined): Promise<string | undefined> {
  if (!pspReference) return undefined;
  const row = await ctx.db.selectFrom('connector_operations').select('reference').where('connector', '=', 'adyen').where('provider_reference', '=', pspReference).executeTakeFirst();
  return row?.reference.slice(0, 36);
}

/** The notices of a dispute item on a payment of Colibri's, when an account that may speak for the payment signed it. */
async function disputeNotices(ctx: AppContext, item: NotificationItem, payment: PaymentRef): Promise<DisputeNotice[]> {
  const trusted = [...ctx.connectors.instanceConnectors()];
  try {
    trusted.push(await ctx.connectors.connectorFor(payment.merchant_id, payment.method as PaymentMethodName));
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
  }
  if (!trusted.some((c) => c instanceof AdyenConnector && c.verifiesNotification(item))) return [];
  return translateDisputeNotification(item, { merchantId: payment.merchant_id, paymentToken: payment.payment_token });
}
