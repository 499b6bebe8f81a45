import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import { ApiError } from '../http/errors';
import { toJsonNumber } from '../lib/money';
import { formatDateTime } from '../lib/time-format';
import { exponentOf } from '../lib/currencies';
import { findCheckout, lockCheckout, type CheckoutRow } from './checkout-record';
import type { CheckoutMethod, CheckoutMode, CheckoutStatus } from './states';
import { isFinalCheckoutStatus } from './states';
import { checkoutPaymentViews } from './payment-view';
import { syncCheckout } from './sync-checkout';

/**
 * Reads a session brought up to date (expiry and its latest attempt applied first, see
 * sync-checkout.ts). With a merchant id another merchant's session is not found; the public page
 * passes none. A final session is read without taking its lock.
 * @example const session = await loadCheckout(ctx, checkoutId, merchantId);
 */
export async function loadCheckout(ctx: AppContext, checkoutId: string, merchantId?: string): Promise<CheckoutRow> {
  const seen = await findCheckout(ctx.db, checkoutId, merchantId);
  if (!seen) throw new ApiError('NOT_FOUND', 'checkout_id: checkout session not found.');
  if (isFinalCheckoutStatus(seen.status)) return seen;
  const now = await merchantNow(ctx.db, seen.merchant_id);
  return ctx.db.transaction().execute(async (trx) => {
    const locked = await lockCheckout(trx, checkoutId, merchantId);
    if (!locked) throw new ApiError('NOT_FOUND', 'checkout_id: checkout session not found.');
    return syncCheckout(trx, locked, now);
  });
}

/**
 * `GET /checkout/<checkout_id>`: the contract's session resource with its payments, oldest first.
 * Each payment carries what its payer needs (payment-view.ts).
 * @example const view = await getCheckout(ctx, merchantId, checkoutId);
 */
export async function getCheckout(ctx: AppContext, merchantId: string, checkoutId: string) {
  const session = await loadCheckout(ctx, checkoutId, merchantId);
  const payments = await checkoutPaymentViews(ctx.db, session);
  return {
    checkout_id: session.checkout_id,
    status: session.status as CheckoutStatus,
    mode: session.mode as CheckoutMode,
    methods: session.methods as CheckoutMethod[],
    reference_id: session.reference_id,
    checkout_reference_id: session.checkout_reference_id,
    amount: toJsonNumber(session.original_amount_minor, exponentOf(session.original_currency)),
    asset: session.original_currency,
    expires_at: formatDateTime(session.expires_at),
    payments,
  };
}
