import { createHash } from 'node:crypto';
import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import type { Db } from '../db/database';
import { recordEvent } from '../events/outbox';
import { computeFees, loadFeePlan, type FeePlan } from '../fees/fee-plan';
import { ApiError } from '../http/errors';
import { formatDate } from '../lib/time-format';
import { changeStatus, lockPayment, paymentEventData, type PaymentRow } from '../payments/payment-record';
import { buildSandboxBoleto } from '../rails/boleto';
import { BrCodeError, formatBrCodeAmount, generateBrCode } from '../rails/pix';
import { findCheckout, lockCheckout, updateCheckout, type CheckoutRow } from './checkout-record';
import { attemptOutcome, isFinalCheckoutStatus, type CheckoutMethod } from './states';
import { STARTING, syncCheckout } from './sync-checkout';

/**
 * The sandbox receiver of PIX and boletos. A real deployment would take the merchant's PIX key, city
 * and bank agreement from its onboarding; the sandbox uses the merchant id (a UUID, which is the shape
 * of a random PIX key), a fixed city and a fixed 7-digit agreement.
 */
export const SANDBOX_MERCHANT_CITY = 'SAO PAULO';
export const SANDBOX_BOLETO_AGREEMENT = '1234567';

/**
 * Checks that a locked, synced session can take a new attempt with `method`, and settles what stands
 * in its way: an open PIX or boleto attempt of another method is canceled (the customer switched), an
 * open attempt of the same method is returned as is (reloading the page starts nothing new).
 * @example const existing = await prepareAttempt(trx, session, 'PIX', now);
 */
export async function prepareAttempt(trx: Db, session: CheckoutRow, method: CheckoutMethod, now: Date): Promise<PaymentRow | undefined> {
  if (isFinalCheckoutStatus(session.status) || now.getTime() >= session.expires_at.getTime()) {
    throw new ApiError('CHECKOUT_NOT_OPEN', undefined, { message: `The checkout session is ${session.status}${isFinalCheckoutStatus(session.status) ? '' : ' and expired'}.` });
  }
  if (!(session.methods as string[]).includes(method)) {
    throw new ApiError('CHECKOUT_METHOD_NOT_OFFERED', `method: ${method} is not one of this session's methods (${session.methods.join(', ')}).`);
  }
  if (session.current_payment_status === STARTING) throw new ApiError('CHECKOUT_ATTEMPT_IN_PROGRESS');
  if (!session.current_payment_token) return undefined;
  const current = await lockPayment(trx, session.merchant_id, session.current_payment_token);
  if (!current || attemptOutcome(current.status) !== 'OPEN') return undefined;
  if (current.method === method && method !== 'CREDITCARD') return current;
  if (current.method === 'PIX' || current.method === 'BOLETO') {
    await changeStatus(trx, current, 'CANCELED', now);
    return undefined;
  }
  throw new ApiError('CHECKOUT_ATTEMPT_IN_PROGRESS');
}

/**
 * Opens a PIX or BOLETO attempt on the public page: lock and sync the session → check it can take the
 * attempt → create the payment (CREATED, expiring with the session) with its BR Code or boleto → move
 * the session to PROCESSING, all in one transaction. Opening the same method again returns the open
 * attempt.
 * @example const { session, payment } = await startCodeAttempt(ctx, checkoutId, 'PIX');
 */
export async function startCodeAttempt(ctx: AppContext, checkoutId: string, method: 'PIX' | 'BOLETO'): Promise<{ session: CheckoutRow; payment: PaymentRow }> {
  const seen = await findCheckout(ctx.db, checkoutId);
  if (!seen) throw new ApiError('NOT_FOUND', 'checkout_id: checkout session not found.');
  const now = await merchantNow(ctx.db, seen.merchant_id);
  const plan = await loadFeePlan(ctx.db, seen.merchant_id);
  const merchant = await ctx.db.selectFrom('merchants').select(['name']).where('id', '=', seen.merchant_id).executeTakeFirstOrThrow();
  const result = await ctx.db.transaction().execute(async (trx) => {
    const locked = await lockCheckout(trx, checkoutId);
    if (!locked) throw new ApiError('NOT_FOUND', 'checkout_id: checkout session not found.');
    const session = await syncCheckout(trx, locked, now);
    const existing = await prepareAttempt(trx, session, method, now);
    if (existing) return { session, payment: existing };
    const payment = await createCodePayment(trx, session, method, { plan, merchantName: merchant.name, now });
    const updated = await updateCheckout(trx, session, now, {
      status: 'PROCESSING',
      current_payment_token: payment.payment_token,
      current_payment_status: payment.status,
      attempts: session.attempts + 1,
    });
    return { session: updated, payment };
  });
  ctx.workerSignal.poke();
  return result;
}

/**
 * Stores a PIX or BOLETO payment of a session, CREATED and expiring with it, its fees, its first
 * history line and event, and what the payer is shown: a BR Code (static, with the amount and a txid
 * made from the payment token) or a sandbox boleto due on the session's expiry date (UTC).
 * @example const payment = await createCodePayment(trx, session, 'PIX', { plan, merchantName: 'Loja', now });
 */
export async function createCodePayment(
  trx: Db,
  session: CheckoutRow,
  method: 'PIX' | 'BOLETO',
  context: { plan: FeePlan; merchantName: string; now: Date },
): Promise<PaymentRow> {
  const { plan, now } = context;
  const fees = computeFees(plan.payments, session.amount_minor);
  const payment = await trx
    .insertInto('payments')
    .values({
      merchant_id: session.merchant_id,
      contract_id: session.contract_id,
      reference_id: session.reference_id,
      method,
      status: 'CREATED',
      person_id: null,
      card_id: null,
      original_amount_minor: session.original_amount_minor,
      original_currency: session.original_currency,
      amount_minor: session.amount_minor,
      currency: 'BRL',
      customer_fees_minor: fees.customerFeesMinor,
      merchant_fees_minor: fees.merchantFeesMinor,
      fee_rules: JSON.stringify({ payments: plan.payments, installment_interest_ppm: plan.installment_interest_ppm }),
      fx_rate: session.fx_rate,
      fx_rate_date: session.fx_rate_date,
      installments: 1,
      delay_capture: false,
      soft_descriptor: null,
      extra_data: null,
      ip_address: null,
      notification_url: session.notification_url,
      authentication: null,
      pending_capture_minor: null,
      processor_id: null,
      error_code: null,
      error_description: null,
      expires_at: session.expires_at,
      end_to_end_id: null,
      subscription_id: null,
      checkout_id: session.checkout_id,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await trx.insertInto('payment_status_history').values({ payment_token: payment.payment_token, status: 'CREATED', at: now }).execute();
  if (fees.fees.length > 0) {
    await trx
      .insertInto('payment_fees')
      .values(fees.fees.map((f) => ({ payment_token: payment.payment_token, fee_type: f.type, payer: f.payer, amount_minor: f.amountMinor, currency: 'BRL' })))
      .execute();
  }
  // A card payment's first event is its move to PROCESSING; a PIX or boleto waits in CREATED for the
  // payer, so the merchant is told it exists now.
  await recordEvent(trx, {
    merchantId: payment.merchant_id,
    type: 'payment.status_changed',
    resourceType: 'payment',
    resourceId: payment.payment_token,
    data: paymentEventData(payment),
    notificationUrls: [payment.notification_url],
  });

  const chargedMinor = payment.amount_minor + payment.customer_fees_minor;
  if (method === 'PIX') {
    const txid = payment.payment_token.replace(/-/g, '').slice(0, 25).toUpperCase();
    const brCode = pixCode(sandboxPixKey(payment.merchant_id), context.merchantName, formatBrCodeAmount(chargedMinor), txid);
    await trx.insertInto('checkout_payment_codes').values({ payment_token: payment.payment_token, checkout_id: session.checkout_id, br_code: brCode, txid, barcode: null, digitable_line: null, due_date: null }).execute();
  } else {
    const { sequence } = await trx.selectNoFrom((eb) => eb.fn<string>('nextval', [eb.val('checkout_boleto_seq')]).as('sequence')).executeTakeFirstOrThrow();
    const dueDate = formatDate(session.expires_at);
    const boleto = buildSandboxBoleto({ agreement: SANDBOX_BOLETO_AGREEMENT, sequence: BigInt(sequence), dueDate, amountCents: chargedMinor });
    await trx
      .insertInto('checkout_payment_codes')
      .values({ payment_token: payment.payment_token, checkout_id: session.checkout_id, br_code: null, txid: null, barcode: boleto.barcode, digitable_line: boleto.digitableLine, due_date: dueDate })
      .execute();
  }
  return payment;
}

/**
 * The sandbox PIX key of a merchant: a random-key (EVP) shaped UUID derived from the merchant id by
 * SHA-256, stable per merchant. The BR Code is shown on the public checkout page, and Colibri's
 * internal ids never appear on public pages; the hash does not lead back to the merchant id.
 * @example sandboxPixKey('6f1c…') // '3b0d9a52-…-4…'
 */
export function sandboxPixKey(merchantId: string): string {
  const hex = createHash('sha256').update(`colibri sandbox pix key\u0000${merchantId}`).digest('hex');
  // Version 4 and the RFC 4122 variant, so that the key has the shape of a bank-issued random key.
  const variant = ((parseInt(hex.slice(16, 17), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** A merchant whose name has no letters a BR Code can carry (e.g. only CJK) is shown as COLIBRI. */
function pixCode(key: string, merchantName: string, amount: string, txid: string): string {
  const input = { key, merchantCity: SANDBOX_MERCHANT_CITY, amount, txid, pointOfInitiation: 'single-use' as const };
  try {
    return generateBrCode({ ...input, merchantName });
  } catch (error) {
    if (!(error instanceof BrCodeError)) throw error;
    return generateBrCode({ ...input, merchantName: 'COLIBRI' });
  }
}
