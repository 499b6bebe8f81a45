import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import { convert } from '../fees/fx';
import { ApiError, type ErrorKey } from '../http/errors';
import { CURRENCY_EXPONENTS, isCurrency, parseAmount } from '../lib/money';
import { MINIMUM_BRL_MINOR } from '../payments/send-payment';
import type { CheckoutRow } from './checkout-record';
import type { GenerateCheckoutInput } from './schemas';
import { CHECKOUT_METHODS, EXPIRES_IN_DEFAULT_SECONDS, type CheckoutMethod, type CheckoutMode } from './states';

/**
 * The largest checkout amount, in BRL cents: a boleto writes its amount in ten digits, and one limit
 * for every method keeps a MULTI session from offering a method that cannot carry its amount.
 */
export const MAXIMUM_CHECKOUT_MINOR = 9_999_999_999n;

type Failure = { key: ErrorKey; description: string };

/**
 * Reads `method` as the spec allows it: one method, an array of methods, or ALL. Exactly one distinct
 * method is SINGLE mode; more, or ALL, is MULTI. Unknown values are refused rather than ignored, so a
 * typo never silently changes the mode. Methods keep the spec's order (PIX, CREDITCARD, BOLETO).
 * @example parseMethods(['BOLETO', 'PIX']) // { ok: true, mode: 'MULTI', methods: ['PIX', 'BOLETO'] }
 * @example parseMethods('PIX')             // { ok: true, mode: 'SINGLE', methods: ['PIX'] }
 */
export function parseMethods(input: string | string[]): { ok: true; mode: CheckoutMode; methods: CheckoutMethod[] } | { ok: false; description: string } {
  if (input === 'ALL') return { ok: true, mode: 'MULTI', methods: [...CHECKOUT_METHODS] };
  const values = typeof input === 'string' ? [input] : input;
  const unknown = values.filter((v) => !(CHECKOUT_METHODS as readonly string[]).includes(v));
  if (unknown.length > 0) {
    return { ok: false, description: `method: ${unknown.map((v) => JSON.stringify(v)).join(', ')} is not a method; use PIX, CREDITCARD or BOLETO, an array of them, or ALL.` };
  }
  const methods = CHECKOUT_METHODS.filter((m) => values.includes(m));
  return { ok: true, mode: methods.length === 1 ? 'SINGLE' : 'MULTI', methods };
}

/**
 * True for an absolute http or https URL with a host (what a browser can be sent to and a callback
 * can be posted to).
 * @example isHttpUrl('https://shop.example/ok') // true
 * @example isHttpUrl('/ok')                     // false
 */
export function isHttpUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}

const URL_FIELDS = ['notificationUrl', 'successUrl', 'declinedUrl', 'errorUrl', 'checkoutNotificationUrl'] as const;

/**
 * `POST /checkout/generate`: validate every field (all failures at once, in the order of the spec's
 * field list) → price in BRL → store the session CREATED. No payment exists yet: the first attempt
 * starts when the customer opens the page (single-method) or picks a method (multi-method).
 * @example const session = await generateCheckout(ctx, merchantId, body);
 */
export async function generateCheckout(ctx: AppContext, merchantId: string, input: GenerateCheckoutInput): Promise<CheckoutRow> {
  const failures: Failure[] = [];
  const fail = (key: ErrorKey, description: string) => failures.push({ key, description });

  const asset = input.asset.toUpperCase();
  const currency = isCurrency(asset) ? asset : undefined;
  const parsed = parseAmount(input.amount, currency ? CURRENCY_EXPONENTS[currency] : 2, 2);
  if (!parsed.ok) {
    if (parsed.reason === 'TOO_MANY_DECIMALS') fail('AMOUNT_DECIMALS', 'amount: Value must have a maximum of two decimal places.');
    else if (parsed.reason === 'TOO_LARGE') fail('FIELD_OUT_OF_RANGE', 'amount: is larger than the maximum checkout amount.');
    else fail('FIELD_FORMAT', 'amount: must be a decimal number or decimal string such as 10.50 or "10.50".');
  }
  if (!currency) fail('CURRENCY_UNSUPPORTED', `asset: ${input.asset} is not supported; use BRL or one of ${Object.keys(CURRENCY_EXPONENTS).join(', ')}.`);

  const merchant = await ctx.db.selectFrom('merchants').select(['contract_id']).where('id', '=', merchantId).executeTakeFirstOrThrow();
  if (input.contractId !== merchant.contract_id) fail('CONTRACT_INVALID', 'contractId: is not a contract of this merchant.');

  const methods = parseMethods(input.method);
  if (!methods.ok) fail('CHECKOUT_METHOD_INVALID', methods.description);
  // In live mode every offered method needs a connector; the session is refused whole otherwise.
  if (methods.ok) for (const method of methods.methods) await ctx.connectors.requireMethod(merchantId, method);

  for (const field of URL_FIELDS) {
    const value = input[field];
    if (value !== undefined && !isHttpUrl(value)) fail('CHECKOUT_URL_INVALID', `${field}: must be an absolute http or https URL.`);
  }
  const country = input.paymentCountry ?? 'BR';
  if (country !== 'BR') fail('CHECKOUT_COUNTRY_UNSUPPORTED', 'paymentCountry: hosted checkout offers Brazilian methods only; must be BR.');
  const paymentCurrency = input.paymentCurrency ?? 'BRL';
  if (paymentCurrency !== 'BRL') fail('CHECKOUT_PAYMENT_CURRENCY_UNSUPPORTED', 'paymentCurrency: PIX, boleto and card checkouts are paid in BRL; must be BRL.');
  if (input.pixDirect === true && methods.ok && !methods.methods.includes('PIX')) fail('CHECKOUT_PIX_DIRECT_WITHOUT_PIX', 'pixDirect: needs PIX among the methods.');
  if (input.saveCard === true && methods.ok && !methods.methods.includes('CREDITCARD')) {
    fail('CHECKOUT_SAVE_CARD_WITHOUT_CARD', 'saveCard: needs CREDITCARD among the methods.');
  }

  // Amount limits come after shape rules so one bad request always gets the same answer.
  let quote: Awaited<ReturnType<typeof convert>> | undefined;
  if (parsed.ok && currency) {
    quote = await convert(ctx.db, parsed.minor, currency, 'BRL');
    if (quote.convertedMinor < MINIMUM_BRL_MINOR) fail('AMOUNT_BELOW_MINIMUM', 'amount: must be at least 1.00 BRL.');
    else if (quote.convertedMinor > MAXIMUM_CHECKOUT_MINOR) fail('FIELD_OUT_OF_RANGE', 'amount: must be at most 99999999.99 BRL.');
  }
  if (failures.length > 0 || !parsed.ok || !currency || !quote || !methods.ok) throw ApiError.fields(failures);

  const now = await merchantNow(ctx.db, merchantId);
  const expiresAt = new Date(now.getTime() + (input.expiresIn ?? EXPIRES_IN_DEFAULT_SECONDS) * 1000);
  return ctx.db
    .insertInto('checkout_sessions')
    .values({
      merchant_id: merchantId,
      contract_id: input.contractId,
      reference_id: input.referenceId,
      checkout_reference_id: input.checkoutReferenceId ?? null,
      mode: methods.mode,
      methods: methods.methods,
      status: 'CREATED',
      original_amount_minor: parsed.minor,
      original_currency: currency,
      amount_minor: quote.convertedMinor,
      currency: 'BRL',
      fx_rate: currency === 'BRL' ? null : quote.rate,
      fx_rate_date: currency === 'BRL' ? null : quote.rateDate,
      notification_url: input.notificationUrl ?? null,
      success_url: input.successUrl ?? null,
      declined_url: input.declinedUrl ?? null,
      error_url: input.errorUrl ?? null,
      checkout_notification_url: input.checkoutNotificationUrl ?? null,
      pix_direct: input.pixDirect ?? false,
      payment_country: country,
      payment_currency: paymentCurrency,
      save_card: input.saveCard ?? false,
      current_payment_token: null,
      current_payment_status: null,
      end_reason: null,
      expires_at: expiresAt,
      created_at: now,
      updated_at: now,
      processing_at: null,
      paid_at: null,
      canceled_at: null,
      failed_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}
