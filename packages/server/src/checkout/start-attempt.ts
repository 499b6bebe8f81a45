import { createHash } from 'node:crypto';
import { merchantNow } from '../clock/merchant-clock';
import { issuePixCharge, openPixCharge, pixIssuerFor } from './pix-charges';
import type { AppContext } from '../context';
import type { Db } from '../db/database';
import { computeFees, loadFeePlan, type FeePlan } from '../fees/fee-plan';
import { ApiError } from '../http/errors';
import { createPayment } from '../payments/create-payment';
import { changeStatus, lockPayment, type PaymentRow } from '../payments/payment-record';
import { buildSandboxBoleto } from '../rails/boleto';
import { cashVoucherReference, speiReceivingClabe } from '../rails/mexico';
import { BrCodeError, formatBrCodeAmount, generateBrCode } from '../rails/pix';
import { bankBoletoExpiry, boletoBankFor, registerBoleto } from './boleto-bank';
import { payerOfSession, PAYER_REQUIRED_DESCRIPTION, storedPayer, type BoletoPayer } from './boleto-payer';
import { boletoTerm } from './boleto-term';
import { findCheckout, lockCheckout, updateCheckout, type CheckoutRow } from './checkout-record';
import { attemptOutcome, isCodeMethod, isFinalCheckoutStatus, type CheckoutMethod, type CodeMethod } from './states';
import { syncCheckout } from './sync-checkout';

/**
 * The sandbox receiver of PIX and boletos. A real deployment would take the merchant's PIX key, city
 * and bank agreement from its onboarding; the sandbox uses the merchant id (a UUID, which is the shape
 * of a random PIX key), a fixed city and a fixed 7-digit agreement.
 */
export const SANDBOX_MERCHANT_CITY = 'SAO PAULO';
export const SANDBOX_BOLETO_AGREEMENT = '1234567';

/**
 * Checks that a locked, synced session can take a new attempt with `method`, and settles what stands
 * in its way: an open code attempt (PIX, boleto, voucher, transfer, wallet) of another method that the
 * payer has not paid yet is canceled (the customer switched), an open attempt of the same method is
 * returned as is (reloading the page starts nothing new), and so is a card payment still CREATED, the
 * one a single-method card session opens at generation for the card the shopper enters. A boleto
 * already paid and waiting for compensation, like a card being processed, cannot be left.
 * @example const existing = await prepareAttempt(trx, session, 'PIX', now);
 */
export async function prepareAttempt(trx: Db, session: CheckoutRow, method: CheckoutMethod, now: Date): Promise<PaymentRow | undefined> {
  if (isFinalCheckoutStatus(session.status) || now.getTime() >= session.expires_at.getTime()) {
    throw new ApiError('CHECKOUT_NOT_OPEN', undefined, { message: `The checkout session is ${session.status}${isFinalCheckoutStatus(session.status) ? '' : ' and expired'}.` });
  }
  if (!(session.methods as string[]).includes(method)) {
    throw new ApiError('CHECKOUT_METHOD_NOT_OFFERED', `method: ${method} is not one of this session's methods (${session.methods.join(', ')}).`);
  }
  if (session.card_attempt_started_at) throw new ApiError('CHECKOUT_ATTEMPT_IN_PROGRESS');
  if (!session.current_payment_token) return undefined;
  const current = await lockPayment(trx, session.merchant_id, session.current_payment_token);
  if (!current || attemptOutcome(current.status) !== 'OPEN') return undefined;
  if (current.method === method && (isCodeMethod(method) || current.status === 'CREATED')) return current;
  if (isCodeMethod(current.method) && current.status === 'CREATED') {
    await changeStatus(trx, current, 'CANCELED', now);
    return undefined;
  }
  throw new ApiError('CHECKOUT_ATTEMPT_IN_PROGRESS');
}

/** What opening a code attempt needs besides the session, read before its transaction. */
export interface AttemptContext {
  plan: FeePlan;
  merchantName: string;
  boletoDueBusinessDays: number;
  now: Date;
  /** The connector that issues the merchant's PIX charges at its PSP, or null when Colibri makes the code (sandbox). */
  pixIssuer: string | null;
  /** The connector that registers the merchant's boletos with a bank, or null (the sandbox's boletos). */
  boletoBank: Awaited<ReturnType<typeof boletoBankFor>>;
  /** Live mode with a bank: a boleto without its payer is refused (the bank would reject it, reasons 45-48). */
  payerRequired: boolean;
}

/**
 * Read before the attempt's transaction: the router may read the merchant's own connectors, which must
 * not wait on a connection the transaction holds.
 * @example const context = await attemptContext(ctx, merchantId, now);
 */
export async function attemptContext(ctx: Pick<AppContext, 'db' | 'connectors' | 'config'>, merchantId: string, now: Date): Promise<AttemptContext> {
  const plan = await loadFeePlan(ctx.db, merchantId);
  const merchant = await ctx.db.selectFrom('merchants').select(['name', 'boleto_due_business_days']).where('id', '=', merchantId).executeTakeFirstOrThrow();
  const issuer = await pixIssuerFor(ctx, merchantId);
  const boletoBank = await boletoBankFor(ctx, merchantId);
  return { plan, merchantName: merchant.name, boletoDueBusinessDays: merchant.boleto_due_business_days, now, pixIssuer: issuer?.id ?? null, boletoBank, payerRequired: boletoBank !== null && ctx.config.mode === 'live' };
}

/**
 * Opens an attempt in the caller's transaction, on a locked and synced session: the open attempt of
 * the same method if there is one, otherwise a new payment (see createAttemptPayment), with the session
 * moved to PROCESSING. Generation (single-method, or pixDirect) and the page's code methods both come
 * through here; a card method opens here only at generation, its payment waiting CREATED for the card.
 * @example const { session, payment } = await openAttempt(trx, session, 'PIX', context);
 */
export async function openAttempt(trx: Db, session: CheckoutRow, method: CheckoutMethod, context: AttemptContext): Promise<{ session: CheckoutRow; payment: PaymentRow }> {
  const existing = await prepareAttempt(trx, session, method, context.now);
  if (existing) return { session, payment: existing };
  const payment = await createAttemptPayment(trx, session, method, context);
  const updated = await updateCheckout(trx, session, context.now, {
    status: 'PROCESSING',
    current_payment_token: payment.payment_token,
    current_payment_status: payment.status,
    attempts: session.attempts + 1,
  });
  return { session: updated, payment };
}

/**
 * Opens a code attempt on the public page: lock and sync the session, then openAttempt, in one
 * transaction. Opening the same method again returns the open attempt. A boleto's payer typed on the
 * page (checked by the caller, boleto-payer.ts) is kept on the session first. A PIX attempt whose charge a PSP
 * issues then gets it (checkout/pix-charges.ts), outside the transaction.
 * @example const { session, payment } = await startCodeAttempt(ctx, checkoutId, 'PIX');
 */
export async function startCodeAttempt(ctx: AppContext, checkoutId: string, method: CodeMethod, payer?: BoletoPayer): Promise<{ session: CheckoutRow; payment: PaymentRow }> {
  const seen = await findCheckout(ctx.db, checkoutId);
  if (!seen) throw new ApiError('NOT_FOUND', 'checkout_id: checkout session not found.');
  const now = await merchantNow(ctx.db, seen.merchant_id);
  const context = await attemptContext(ctx, seen.merchant_id, now);
  const result = await ctx.db.transaction().execute(async (trx) => {
    const locked = await lockCheckout(trx, checkoutId);
    if (!locked) throw new ApiError('NOT_FOUND', 'checkout_id: checkout session not found.');
    let session = await syncCheckout(trx, locked, now);
    if (payer && method === 'BOLETO') {
      const stored = storedPayer(payer);
      await trx.updateTable('checkout_sessions').set({ payer: JSON.stringify(stored) }).where('checkout_id', '=', checkoutId).execute();
      session = { ...session, payer: stored };
    }
    return openAttempt(trx, session, method, context);
  });
  ctx.workerSignal.poke();
  if (await issuePixCharge(ctx, result.payment)) return refreshed(ctx, result.session, result.payment);
  return result;
}

/** A session and its attempt as they are now (after the PSP was asked for a PIX charge). */
export async function refreshed(ctx: AppContext, session: CheckoutRow, payment: PaymentRow): Promise<{ session: CheckoutRow; payment: PaymentRow }> {
  const [current, row] = await Promise.all([
    findCheckout(ctx.db, session.checkout_id, session.merchant_id),
    ctx.db.selectFrom('payments').selectAll().where('payment_token', '=', payment.payment_token).executeTakeFirst(),
  ]);
  return { session: current ?? session, payment: row ?? payment };
}

/**
 * Stores the payment of a session's attempt through the payments domain (CREATED, in the session's
 * currency, with its fees, its first history line and its event), and what the payer is shown:
 * - PIX: a BR Code (static, with the amount and a txid made from the payment token), expiring with the
 *   session; when a PSP issues the merchant's charges, the charge is opened in its connector's books
 *   and its dynamic BR Code comes from the PSP once this transaction commits (issuePixCharge);
 * - BOLETO: a sandbox boleto due the merchant's number of business days after today in Brasília, payable
 *   through the end of that day (boleto-term.ts), whatever the session's expiry; where a bank registers
 *   the merchant's boletos, the bank's boleto, its registration waiting for the next remessa, and a PIX
 *   charge beside it where a PSP issues the merchant's PIX (boleto-bank.ts);
 * - OXXO and PAYNET: a voucher reference with its Code 128 barcode, expiring with the session;
 * - SPEI: a receiving CLABE of its own, expiring with the session;
 * - PICPAY: a deep link into the wallet and the QR code that carries it, expiring with the session;
 * - CREDITCARD and DEBITCARD (single-method generation): nothing yet; the payment waits, with no person
 *   and no card, for the card the shopper enters on the page (pay-with-card.ts, pay-with-debit.ts, which
 *   send this payment), and expires with the session if none comes.
 * @example const payment = await createAttemptPayment(trx, session, 'PIX', context);
 */
export async function createAttemptPayment(trx: Db, session: CheckoutRow, method: CheckoutMethod, context: AttemptContext): Promise<PaymentRow> {
  const { plan, now } = context;
  const boleto = method === 'BOLETO' ? boletoTerm(now, context.boletoDueBusinessDays) : undefined;
  // A bank registers a boleto only with its payer: in live mode one without it is refused now, not by the bank later.
  const payer = method === 'BOLETO' ? payerOfSession(session) : null;
  if (method === 'BOLETO' && context.boletoBank && context.payerRequired && !payer) throw new ApiError('CHECKOUT_BOLETO_PAYER_REQUIRED', PAYER_REQUIRED_DESCRIPTION);
  const payment = await createPayment(trx, {
    merchantId: session.merchant_id,
    contractId: session.contract_id,
    referenceId: session.reference_id,
    method,
    personId: null,
    cardId: null,
    originalMinor: session.original_amount_minor,
    originalCurrency: session.original_currency,
    price: { amountMinor: session.amount_minor, currency: session.currency, fxRate: session.fx_rate, fxRateDate: session.fx_rate_date },
    plan,
    fees: computeFees(plan.payments, session.amount_minor),
    installments: 1,
    delayCapture: false,
    softDescriptor: null,
    extraData: null,
    ipAddress: null,
    notificationUrl: session.notification_url,
    authentication: undefined,
    subscriptionId: null,
    checkoutId: session.checkout_id,
    // A boleto registered with a bank stays open a few days past its due date, for the bank's return of a last-day payment.
    expiresAt: boleto ? (context.boletoBank ? bankBoletoExpiry(boleto.payableUntil, context.boletoBank) : boleto.payableUntil) : session.expires_at,
    now,
    // A card payment sent at once has its move to PROCESSING as first event; an attempt's payment waits
    // in CREATED for the payer (or, for a card, for the card typed on the page), so the merchant is told
    // it exists now.
    start: 'await-payer',
  });

  if (!isCodeMethod(method)) return payment;
  const chargedMinor = payment.amount_minor + payment.customer_fees_minor;
  const codes = { payment_token: payment.payment_token, merchant_id: payment.merchant_id, checkout_id: session.checkout_id, br_code: null, txid: null, barcode: null, digitable_line: null, due_date: null };
  const hex = payment.payment_token.replace(/-/g, '');
  if (method === 'PIX' && context.pixIssuer) {
    const txid = await openPixCharge(trx, context.pixIssuer, payment);
    await trx.insertInto('checkout_payment_codes').values({ ...codes, txid }).execute();
  } else if (method === 'PIX') {
    const txid = hex.slice(0, 25).toUpperCase();
    const brCode = pixCode(sandboxPixKey(payment.merchant_id), context.merchantName, formatBrCodeAmount(chargedMinor), txid);
    await trx.insertInto('checkout_payment_codes').values({ ...codes, br_code: brCode, txid }).execute();
  } else if (method === 'PICPAY') {
    // The wallet opens the payment from its deep link; the QR code carries the same link for a phone's camera.
    const deepLink = `picpay://picpay/checkout/${hex}`;
    await trx.insertInto('checkout_payment_codes').values({ ...codes, deep_link: deepLink, qr_payload: deepLink }).execute();
  } else {
    // One sequence numbers every boleto, voucher and SPEI account, so no two payments share a reference.
    const { sequence } = await trx.selectNoFrom((eb) => eb.fn<string>('nextval', [eb.val('checkout_boleto_seq')]).as('sequence')).executeTakeFirstOrThrow();
    if (method === 'BOLETO' && boleto && context.boletoBank) {
      // Registered with the bank by the next remessa (boleto-bank.ts); with a PIX charge where a PSP issues the merchant's.
      const built = await registerBoleto(trx, context.boletoBank, payment, BigInt(sequence), boleto.dueDate, chargedMinor, payer, now);
      const txid = context.pixIssuer ? await openPixCharge(trx, context.pixIssuer, payment) : null;
      await trx.insertInto('checkout_payment_codes').values({ ...codes, txid, barcode: built.barcode, digitable_line: built.digitableLine, due_date: boleto.dueDate }).execute();
    } else if (method === 'BOLETO' && boleto) {
      const built = buildSandboxBoleto({ agreement: SANDBOX_BOLETO_AGREEMENT, sequence: BigInt(sequence), dueDate: boleto.dueDate, amountCents: chargedMinor });
      await trx.insertInto('checkout_payment_codes').values({ ...codes, barcode: built.barcode, digitable_line: built.digitableLine, due_date: boleto.dueDate }).execute();
    } else if (method === 'OXXO' || method === 'PAYNET') {
      const reference = cashVoucherReference(method, BigInt(sequence));
      await trx.insertInto('checkout_payment_codes').values({ ...codes, reference, barcode: reference }).execute();
    } else {
      const clabe = speiReceivingClabe(BigInt(sequence));
      // SPEI's numeric reference is at most 7 digits; the payer's bank carries it with the transfer.
      await trx.insertInto('checkout_payment_codes').values({ ...codes, clabe, reference: String(BigInt(sequence) % 10_000_000n) }).execute();
    }
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
