import type { Migration } from 'kysely';
import * as foundation from './0001-foundation';
import * as platform from './0002-platform';
import * as vault from './0003-vault';
import * as payments from './0004-payments';
import * as refunds from './0011-refunds';
import * as payouts from './0005-payouts';
import * as webhooks from './0006-webhooks';
import * as reports from './0007-reports';
import * as threeDs from './0008-three-ds';
import * as checkout from './0009-checkout';
import * as subscriptions from './0010-subscriptions';
import * as resilience from './0012-resilience';
import * as accessAndKeys from './0014-access-and-keys';
import * as unchargedFees from './0016-uncharged-fees';
import * as connectors from './0017-connectors';
import * as dashboard from './0020-dashboard';
import * as pixCharges from './0021-pix-charges';
import * as checkoutMethods from './0015-checkout-methods';
import * as checkoutCardAttempt from './0025-checkout-card-attempt';
import * as paymentRefundedAt from './0026-payment-refunded-at';
import * as tenantKeys from './0022-tenant-keys';
import * as threeDsChallengeFailedAt from './0027-three-ds-challenge-failed-at';
import * as callbackFanout from './0028-callback-fanout';
import * as paymentOperations from './0029-payment-operations';
import * as checkoutTold from './0030-checkout-told';
import * as disputes from './0031-disputes';
import * as balance from './0032-balance';
import * as settlements from './0033-settlements';
import * as reconciliation from './0034-reconciliation';
import * as pixReturns from './0035-pix-returns';
import * as boletoBankFiles from './0036-boleto-bank-files';
import * as paymentIpCountry from './0038-payment-ip-country';
import * as externalAuthentications from './0039-external-authentications';
import * as paymentsByReference from './0042-payments-by-reference';
import * as boletoPayer from './0044-boleto-payer';
import * as merchantTimeZone from './0045-merchant-time-zone';
import * as lighterWrites from './0046-lighter-writes';
import * as paymentsHeapOnlyUpdates from './0047-payments-heap-only-updates';
import * as paymentLinesInRow from './0048-payment-lines-in-row';
import * as payoutDispatches from './0037-payout-dispatches';
import * as webhookEndpoints from './0043-webhook-endpoints';

/**
 * Every migration, in order. Listed statically (not read from the file system) so the same set runs
 * from source, from tests and from a bundle. Names sort in application order.
 */
export const migrations: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-platform': platform,
  '0003-vault': vault,
  '0004-payments': payments,
  '0005-payouts': payouts,
  '0006-webhooks': webhooks,
  '0007-reports': reports,
  '0008-three-ds': threeDs,
  '0009-checkout': checkout,
  '0010-subscriptions': subscriptions,
  '0011-refunds': refunds,
  '0012-resilience': resilience,
  '0014-access-and-keys': accessAndKeys,
  '0016-uncharged-fees': unchargedFees,
  '0017-connectors': connectors,
  '0020-dashboard': dashboard,
  '0021-pix-charges': pixCharges,
  '0015-checkout-methods': checkoutMethods,
  '0025-checkout-card-attempt': checkoutCardAttempt,
  '0026-payment-refunded-at': paymentRefundedAt,
  '0022-tenant-keys': tenantKeys,
  '0027-three-ds-challenge-failed-at': threeDsChallengeFailedAt,
  '0028-callback-fanout': callbackFanout,
  '0029-payment-operations': paymentOperations,
  '0030-checkout-told': checkoutTold,
  '0031-disputes': disputes,
  '0032-balance': balance,
  '0033-settlements': settlements,
  '0034-reconciliation': reconciliation,
  '0035-pix-returns': pixReturns,
  '0036-boleto-bank-files': boletoBankFiles,
  '0038-payment-ip-country': paymentIpCountry,
  '0039-external-authentications': externalAuthentications,
  '0042-payments-by-reference': paymentsByReference,
  '0037-payout-dispatches': payoutDispatches,
  '0043-webhook-endpoints': webhookEndpoints,
  '0044-boleto-payer': boletoPayer,
  '0045-merchant-time-zone': merchantTimeZone,
  '0046-lighter-writes': lighterWrites,
  '0047-payments-heap-only-updates': paymentsHeapOnlyUpdates,
  '0048-payment-lines-in-row': paymentLinesInRow,
};
