import type { AppContext } from '../context';
import { ApiError } from '../http/errors';
import { loadFeePlan, planOptions } from '../fees/fee-plan';
import { installmentOptionView } from '../payments/installments-route';
import { toJsonNumber } from '../lib/money';
import { formatDateTime } from '../lib/time-format';
import { exponentOf } from '../lib/currencies';
import { findCheckout, type CheckoutRow } from './checkout-record';
import type { CheckoutMethod, CheckoutMode, CheckoutStatus } from './states';
import { checkoutPaymentViews } from './payment-view';

/**
 * Reads a session as it is stored: a read only, with no lock, no write and no transaction. The stored
 * session is current because it is told: each status change of its payments reaches it through the
 * PAYMENT_CHANGED_JOB enqueued with the change (checkout/payment-changed.ts), and what time alone
 * changes (expiry, boleto compensation, a lapsed card claim) is applied by the sweep
 * (sweep-checkouts.ts). With a merchant id another merchant's session is not found; the public page
 * passes none.
 * @example const session = await loadCheckout(ctx, checkoutId, merchantId);
 */
export async function loadCheckout(ctx: Pick<AppContext, 'db'>, checkoutId: string, merchantId?: string): Promise<CheckoutRow> {
  const session = await findCheckout(ctx.db, checkoutId, merchantId);
  if (!session) throw new ApiError('NOT_FOUND', 'checkout_id: checkout session not found.');
  return session;
}

/**
 * `GET /checkout/<checkout_id>`: the contract's session resource with its payments, oldest first.
 * Each payment carries what its payer needs (payment-view.ts).
 * @example const view = await getCheckout(ctx, merchantId, checkoutId);
 */
export async function getCheckout(ctx: AppContext, merchantId: string, checkoutId: string) {
  const session = await loadCheckout(ctx, checkoutId, merchantId);
  const payments = await checkoutPaymentViews(ctx.db, session);
  // A card session offers the merchant's installment options on what the session charges (plan-wide rates: no card yet).
  const card = (session.methods as CheckoutMethod[]).includes('CREDITCARD');
  const installmentOptions = card ? planOptions(await loadFeePlan(ctx.db, merchantId), session.amount_minor).map((o) => installmentOptionView(o, session.currency)) : [];
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
    installment_options: installmentOptions,
  };
}
