import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import { ApiError, type ErrorKey } from '../http/errors';
import type { FxQuote } from '../fees/fx';
import type { Currency } from '../lib/currencies';
import { chargedPrice, readPrice, type PriceWording } from '../pricing/price';
import type { CheckoutRow } from './checkout-record';
import type { GenerateCheckoutInput } from './schemas';
import type { PaymentRow } from '../payments/payment-record';
import { lockCheckout } from './checkout-record';
import { attemptContext, openAttempt, refreshed } from './start-attempt';
import { issuePixCharge } from './pix-charges';
import { boletoBankFor } from './boleto-bank';
import { checkPayer, GENERATE_PAYER_FIELDS, PAYER_REQUIRED_DESCRIPTION, storedPayer, type BoletoPayer } from './boleto-payer';
import { ALL_METHODS, CHECKOUT_METHODS, EXPIRES_IN_DEFAULT_SECONDS, type CheckoutMethod, type CheckoutMode } from './states';
import { METHOD_MARKET } from '../payments/methods';

/**
 * The largest checkout amount, in BRL cents: a boleto writes its amount in ten digits, and one limit
 * for every method keeps a MULTI session from offering a method that cannot carry its amount.
 */
export const MAXIMUM_CHECKOUT_MINOR = 9_999_999_999n;

type Failure = { key: ErrorKey; description: string };

/** How a session names its price's fields and words their failures (pricing/price.ts has the rules). */
const PRICE_WORDING: PriceWording = {
  amountField: 'amount',
  assetField: 'asset',
  format: 'a decimal number or decimal string such as 10.50 or "10.50"',
  largest: 'the maximum checkout amount',
};

/**
 * Reads `method` as the spec allows it: one method, an array of methods, or ALL. Exactly one distinct
 * method is SINGLE mode; more, or ALL, is MULTI. Unknown values are refused rather than ignored, so a
 * typo never silently changes the mode. Methods keep CHECKOUT_METHODS's order. ALL offers the methods of
 * `country` (ALL_METHODS).
 * @example parseMethods(['BOLETO', 'PIX']) // { ok: true, mode: 'MULTI', methods: ['PIX', 'BOLETO'] }
 * @example parseMethods('PIX')             // { ok: true, mode: 'SINGLE', methods: ['PIX'] }
 */
export function parseMethods(input: string | string[], country: 'BR' | 'MX' = 'BR'): { ok: true; mode: CheckoutMode; methods: CheckoutMethod[] } | { ok: false; description: string } {
  if (input === 'ALL') return { ok: true, mode: 'MULTI', methods: [...ALL_METHODS[country]] };
  const values = typeof input === 'string' ? [input] : input;
  const unknown = values.filter((v) => !(CHECKOUT_METHODS as readonly string[]).includes(v));
  if (unknown.length > 0) {
    return { ok: false, description: `method: ${unknown.map((v) => JSON.stringify(v)).join(', ')} is not a method; use ${CHECKOUT_METHODS.join(', ')}, an array of them, or ALL.` };
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
 * field list) → price in the methods' currency (BRL in Brazil, MXN in Mexico) → store the session
 * CREATED and, in single-method mode (or with pixDirect, its PIX), start the payment attempt at once,
 * in the same transaction, so the answer carries the payment: a code method's payment waits CREATED for
 * the payer, a card method's waits CREATED for the card the shopper enters on the page.
 * @example const { session, payment } = await generateCheckout(ctx, merchantId, body);
 */
export async function generateCheckout(ctx: AppContext, merchantId: string, input: GenerateCheckoutInput): Promise<{ session: CheckoutRow; payment: PaymentRow | undefined }> {
  const failures: Failure[] = [];
  const fail = (key: ErrorKey, description: string) => failures.push({ key, description });

  const price = readPrice(input.amount, input.asset, PRICE_WORDING);
  const { currency, amount: parsed } = price;
  if (price.amountFailure) failures.push(price.amountFailure);
  if (price.assetFailure) failures.push(price.assetFailure);

  const merchant = await ctx.db.selectFrom('merchants').select(['contract_id']).where('id', '=', merchantId).executeTakeFirstOrThrow();
  if (input.contractId !== merchant.contract_id) fail('CONTRACT_INVALID', 'contractId: is not a contract of this merchant.');

  // The country decides what ALL means; without paymentCountry it follows the named methods.
  const named = typeof input.method === 'string' ? [input.method] : input.method;
  const mexicanOnly = named.length > 0 && named.every((m) => (CHECKOUT_METHODS as readonly string[]).includes(m) && METHOD_MARKET[m as CheckoutMethod].country === 'MX');
  const country = input.paymentCountry ?? (mexicanOnly ? 'MX' : 'BR');
  const market = country === 'MX' ? 'MX' : 'BR';
  const methods = parseMethods(input.method, market);
  if (!methods.ok) fail('CHECKOUT_METHOD_INVALID', methods.description);
  // In live mode every offered method needs a connector; the session is refused whole otherwise.
  if (methods.ok) for (const method of methods.methods) await ctx.connectors.requireMethod(merchantId, method);

  for (const field of URL_FIELDS) {
    const value = input[field];
    if (value !== undefined && !isHttpUrl(value)) fail('CHECKOUT_URL_INVALID', `${field}: must be an absolute http or https URL.`);
  }
  const paymentCurrency = input.paymentCurrency ?? (market === 'MX' ? 'MXN' : 'BRL');
  if (country !== 'BR' && country !== 'MX') {
    fail('CHECKOUT_COUNTRY_UNSUPPORTED', 'paymentCountry: must be BR (PIX, cards, boleto, PicPay) or MX (OXXO, PAYNET, SPEI).');
  } else if (methods.ok && methods.methods.some((m) => METHOD_MARKET[m].country !== country)) {
    const foreign = methods.methods.filter((m) => METHOD_MARKET[m].country !== country);
    fail('CHECKOUT_COUNTRY_UNSUPPORTED', `paymentCountry: ${foreign.join(', ')} ${foreign.length === 1 ? 'is' : 'are'} not paid in ${country}; one session offers the methods of one country.`);
  }
  const expectedCurrency = market === 'MX' ? 'MXN' : 'BRL';
  if (paymentCurrency !== expectedCurrency) {
    fail('CHECKOUT_PAYMENT_CURRENCY_UNSUPPORTED', `paymentCurrency: methods paid in ${market} are paid in ${expectedCurrency}; must be ${expectedCurrency}.`);
  }
  if (input.pixDirect === true && methods.ok && !methods.methods.includes('PIX')) fail('CHECKOUT_PIX_DIRECT_WITHOUT_PIX', 'pixDirect: needs PIX among the methods.');
  if (input.saveCard === true && methods.ok && !methods.methods.some((m) => m === 'CREDITCARD' || m === 'DEBITCARD')) {
    fail('CHECKOUT_SAVE_CARD_WITHOUT_CARD', 'saveCard: needs CREDITCARD or DEBITCARD among the methods.');
  }

  const payer = readPayer(input, failures);
  // A single-method boleto starts at generation: in live mode, where a bank registers it, its payer must come now.
  if (!payer.given && methods.ok && methods.mode === 'SINGLE' && methods.methods[0] === 'BOLETO' && ctx.config.mode === 'live' && (await boletoBankFor(ctx, merchantId))) {
    fail('CHECKOUT_BOLETO_PAYER_REQUIRED', `customer, billingAddress: ${PAYER_REQUIRED_DESCRIPTION}`);
  }

  // Amount limits come after shape rules so one bad request always gets the same answer.
  const target: Currency = expectedCurrency;
  let quote: FxQuote | undefined;
  if (parsed.ok && currency) {
    const charged = await chargedPrice(ctx.db, parsed.minor, currency, target, PRICE_WORDING.amountField);
    quote = charged.quote;
    if (charged.failure) failures.push(charged.failure);
    else if (quote.convertedMinor > MAXIMUM_CHECKOUT_MINOR) fail('FIELD_OUT_OF_RANGE', `amount: must be at most 99999999.99 ${target}.`);
  }
  if (failures.length > 0 || !parsed.ok || !currency || !quote || !methods.ok) throw ApiError.fields(failures);

  const now = await merchantNow(ctx.db, merchantId);
  const expiresAt = new Date(now.getTime() + (input.expiresIn ?? EXPIRES_IN_DEFAULT_SECONDS) * 1000);
  const only = methods.methods[0];
  const first = methods.mode === 'SINGLE' && only ? only : input.pixDirect === true ? 'PIX' : undefined;
  const context = first ? await attemptContext(ctx, merchantId, now) : undefined;
  const result = await ctx.db.transaction().execute(async (trx) => {
    const session = await trx
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
        currency: target,
        fx_rate: currency === target ? null : quote.rate,
        fx_rate_date: currency === target ? null : quote.rateDate,
        notification_url: input.notificationUrl ?? null,
        success_url: input.successUrl ?? null,
        declined_url: input.declinedUrl ?? null,
        error_url: input.errorUrl ?? null,
        checkout_notification_url: input.checkoutNotificationUrl ?? null,
        pix_direct: input.pixDirect ?? false,
        payment_country: country,
        payment_currency: paymentCurrency,
        save_card: input.saveCard ?? false,
        payer: payer.payer ? JSON.stringify(storedPayer(payer.payer)) : null,
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
    if (!first || !context) return { session, payment: undefined };
    const locked = await lockCheckout(trx, session.checkout_id);
    if (!locked) throw new Error('invariant: a session just inserted exists');
    return openAttempt(trx, locked, first, context);
  });
  if (result.payment) {
    ctx.workerSignal.poke();
    // A PSP that refuses the charge fails the attempt meanwhile: the answer shows both as they are now.
    if (await issuePixCharge(ctx, result.payment)) return refreshed(ctx, result.session, result.payment);
  }
  return result;
}

/**
 * The boleto payer of a generation: `customer` and `billingAddress` come together, and are checked as
 * the page's payer is (boleto-payer.ts). Failures are added to the request's.
 */
function readPayer(input: GenerateCheckoutInput, failures: Failure[]): { given: boolean; payer: BoletoPayer | null } {
  const { customer, billingAddress: address } = input;
  if (!customer && !address) return { given: false, payer: null };
  if (!customer || !address) {
    const missing = customer ? 'billingAddress' : 'customer';
    failures.push({ key: 'FIELD_REQUIRED', description: `${missing}: is required with ${customer ? 'customer' : 'billingAddress'}; together they are the boleto's payer.` });
    return { given: true, payer: null };
  }
  if (address.country !== undefined && address.country !== 'BRA') failures.push({ key: 'FIELD_FORMAT', description: 'billingAddress.country: a boleto payer\'s address is in Brazil (BRA).' });
  const checked = checkPayer(
    { name: customer.name, taxId: customer.id, street: address.street, number: address.number, complement: address.complement, district: address.district, city: address.city, state: address.regionCode, postalCode: address.postalCode },
    GENERATE_PAYER_FIELDS,
  );
  if (!checked.ok) {
    failures.push(...checked.failures);
    return { given: true, payer: null };
  }
  return { given: true, payer: checked.payer };
}
