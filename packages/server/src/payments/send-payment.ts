import { isIP } from 'node:net';
import { clockAt } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import type { Db } from '../db/database';
import { computeFees, forScheme, maxInstallments, type AppliedFee } from '../fees/fee-plan';
import type { FxQuote } from '../fees/fx';
import { ApiError, type ErrorKey } from '../http/errors';
import { ipCountries } from '../lib/ip-country';
import { chargedPrice, readPrice, type PriceWording } from '../pricing/price';
import { authorization, quotedPrice, sendWaitingCardPayment, type NewPayment, type StoredPayment } from './create-payment';
import { sendPaymentStatements, type PaymentContext } from './hot-path';
import { changeStatus, type PaymentRow } from './payment-record';
import { requestOperation } from './operations';
import type { JobAuthentication } from './payment-job';
import { EXTRA_DATA_MAX_BYTES, type SendPaymentInput } from './schemas';

/** How sendPayment names its price's fields and words their failures (pricing/price.ts has the rules). */
const PRICE_WORDING: PriceWording = {
  amountField: 'payment.amount',
  assetField: 'payment.asset',
  format: 'a decimal number such as "10.50"',
  largest: 'the maximum payment',
};

/**
 * How sendPayment claims the 3DS data a card payment carries: `claim` verifies the data against the
 * authentication that issued it and marks that authentication used before the payment is stored, or
 * answers null when the processor is left to verify it; a claim's `release` undoes it when the
 * payment is not stored after all.
 *
 * Payments declares this and 3DS implements it (`threeDsClaims`, three-ds/verify-authentication.ts);
 * the composition root hands it to the payment routes (app.ts), so payments, at the bottom of the
 * domains, never imports 3DS, which calls down into payments to pay with an authentication. The claim
 * is one step in the middle of sendPayment, after the request's own checks (which answer first) and
 * before the insert (whose failure releases it): passing the step in keeps sendPayment's phases and
 * answers exactly as they were, where moving it above payments would cut sendPayment in two.
 */
export interface AuthenticationClaims {
  claim(ctx: AppContext, presented: NonNullable<SendPaymentInput['authentication']>, payment: AuthenticatedPayment): Promise<AuthenticationClaim | null>;
}

/** What a payment is about to charge, for `AuthenticationClaims.claim` to compare with what was authenticated. */
export interface AuthenticatedPayment {
  readonly merchantId: string;
  readonly cardId: string;
  readonly amountMinor: bigint;
  readonly currency: string;
  readonly now: Date;
}

/** An authentication claimed for a payment not stored yet. */
export interface AuthenticationClaim {
  /** Undoes the claim, so the authentication can still pay. */
  release(): Promise<unknown>;
}

export interface SendPaymentResult {
  payment: StoredPayment;
  cardStatus: string;
  /** The customer-paid fees, for the response's customer_fees object. */
  customerFees: readonly AppliedFee[];
}

/**
 * `POST /checkout/sendPayment`: validate → load person and card → price (FX and fees) → store the
 * payment as PROCESSING with its fees, history and event, and enqueue its authorisation, all in one
 * transaction. The processor's answer arrives asynchronously (process-payment.ts). A hosted checkout's
 * page passes its session (`checkoutId`), so the payment belongs to it from its first row and every
 * settlement of it tells the session (payment-followups.ts). 3DS data is claimed through
 * `options.claims` (AuthenticationClaims), unless the caller claimed it (`authenticationClaimed`).
 *
 * A plain request (no Idempotency-Key, no 3DS data, no reserved token) whose merchant this process has
 * read before first tries one round trip: priced on the context it assumes, stored only if that context
 * still holds (sendPaymentStatements, hot-path.ts). Any failure there, a refused field or a context that
 * changed, falls through to the read, so every answer is the one the read gives.
 * @example const { payment } = await sendPayment(ctx, merchantId, body, { claims });
 */
export async function sendPayment(
  ctx: AppContext,
  merchantId: string,
  input: SendPaymentInput,
  options: { paymentToken?: string; idempotencyKey?: string | undefined; authenticationClaimed?: boolean; checkoutId?: string | undefined; claims?: AuthenticationClaims } = {},
): Promise<SendPaymentResult> {
  // In live mode a method without a connector is refused before anything is read or stored.
  await ctx.connectors.requireMethod(merchantId, input.payment.method);

  const statements = sendPaymentStatements(ctx.db);
  const idempotencyKey = options.idempotencyKey ?? null;
  const plain = idempotencyKey === null && !input.authentication && !options.paymentToken;
  const assumed = plain ? statements.assumedContext({ merchantId, personId: input.public_person_id, cardId: input.public_card_id }) : undefined;
  if (assumed) {
    const { priced } = await checkAndPrice(ctx, merchantId, input, assumed, options);
    const payment = priced ? await statements.insertIfCurrent({ payment: priced.payment, assumed: assumed.merchant }) : null;
    if (priced && payment) return stored(ctx, payment, priced);
  }

  const loaded = await statements.loadContext({ merchantId, personId: input.public_person_id, cardId: input.public_card_id, idempotencyKey });
  // A retry after a crash: the first run committed its payment, which is the answer.
  if (loaded.existingToken) return existingPayment(ctx.db, merchantId, loaded.existingToken);
  const { priced, failures } = await checkAndPrice(ctx, merchantId, input, loaded, options);
  if (!priced) throw ApiError.fields(failures);
  const { card, payment: pricedPayment } = priced;

  // 3DS data is verified against the authentication that issued it, and claimed, before anything is
  // stored (three-ds/verify-authentication.ts); `POST /checkout/3ds/payment` has claimed its own already.
  if (input.authentication && !options.authenticationClaimed && !options.claims) throw new Error('invariant: sendPayment got 3DS data without a way to claim it (options.claims)');
  const claim =
    input.authentication && !options.authenticationClaimed && options.claims
      ? await options.claims.claim(ctx, input.authentication, { merchantId, cardId: card.id, amountMinor: pricedPayment.originalMinor, currency: pricedPayment.originalCurrency, now: pricedPayment.now })
      : null;
  // A reserved token that names a payment already stored is a checkout's card payment waiting for its
  // card (create-payment.ts, sendWaitingCardPayment); any other is inserted with the token (a 3DS authentication's).
  const waiting = options.paymentToken
    ? await ctx.db.selectFrom('payments').select('payment_token').where('merchant_id', '=', merchantId).where('payment_token', '=', options.paymentToken).executeTakeFirst()
    : undefined;
  let payment: StoredPayment;
  try {
    payment = waiting
      ? await sendWaitingCardPayment(ctx.db, { ...pricedPayment, paymentToken: waiting.payment_token })
      : await statements.insert(pricedPayment).catch(async (error: unknown) => {
          // Two runs of one key raced past the lease (a process that stalled longer than it): the unique
          // index let one payment in, and this run answers with it.
          if (idempotencyKey !== null && (error as { constraint?: string }).constraint === 'payments_idempotency_key_idx') {
            const raced = await ctx.db.selectFrom('payments').select('payment_token').where('merchant_id', '=', merchantId).where('idempotency_key', '=', idempotencyKey).executeTakeFirst();
            if (raced) return (await existingPayment(ctx.db, merchantId, raced.payment_token)).payment;
          }
          throw error;
        });
  } catch (error) {
    // The payment was not stored: the compensation undoes the claim, so the authentication can still pay.
    if (claim) await claim.release();
    throw error;
  }
  return stored(ctx, payment, priced);
}

/** A request checked and priced on its context: the payment to store, or every field that fails (in the order the spec's checks run). */
interface Checked {
  priced: { payment: NewPayment; card: NonNullable<PaymentContext['card']>; fees: readonly AppliedFee[] } | undefined;
  failures: { key: ErrorKey; description: string }[];
}

/** Checks a request against its context and prices it (FX and fees), reading nothing but FX rates and, for per-scheme installment rates, the card's scheme. */
async function checkAndPrice(
  ctx: AppContext,
  merchantId: string,
  input: SendPaymentInput,
  loaded: PaymentContext,
  options: { paymentToken?: string; idempotencyKey?: string | undefined; checkoutId?: string | undefined },
): Promise<Checked> {
  const failures: Checked['failures'] = [];
  const fail = (key: ErrorKey, description: string) => failures.push({ key, description });
  if (input.contract_id !== loaded.merchant.contractId) fail('CONTRACT_INVALID', 'contract_id: is not a contract of this merchant.');

  const price = readPrice(input.payment.amount, input.payment.asset, PRICE_WORDING);
  const { currency, amount: parsed } = price;
  if (price.assetFailure) failures.push(price.assetFailure);
  if (price.amountFailure) failures.push(price.amountFailure);
  const debit = input.payment.method === 'DEBITCARD';
  if (debit && !input.authentication) fail('AUTHENTICATION_REQUIRED', 'authentication: is required for DEBITCARD payments.');
  if (debit && (input.payment.installments > 1 || input.payment.delay_capture === true)) {
    fail('DEBIT_OPTION_UNSUPPORTED', 'payment: DEBITCARD payments take no installments and no delay_capture.');
  }
  if (input.extra_data !== undefined && Buffer.byteLength(JSON.stringify(input.extra_data), 'utf8') > EXTRA_DATA_MAX_BYTES) {
    fail('FIELD_TOO_LARGE', `extra_data: must be at most ${EXTRA_DATA_MAX_BYTES} bytes written as JSON.`);
  }
  if (input.ip_address !== undefined && isIP(input.ip_address) === 0) fail('FIELD_FORMAT', 'ip_address: must be an IPv4 or IPv6 address.');

  const { person, card } = loaded;
  const most = maxInstallments(loaded.feePlan);
  if (input.payment.installments > most) fail('INSTALLMENTS_BEYOND_PLAN', `payment.installments: this merchant's plan offers at most ${most} installments.`);
  if (!person) fail('PERSON_NOT_FOUND', 'public_person_id: person not found.');
  if (!card) fail('CARD_NOT_FOUND', 'public_card_id: card not found.');
  if (person && card && card.person_id !== person.id) fail('CARD_NOT_OF_PERSON', 'public_card_id: the card does not belong to this person.');
  if (card && card.status !== 'ACTIVE') fail('CARD_NOT_ACTIVE', 'public_card_id: the card is not ACTIVE.');

  // Amount rules come after shape rules so one bad request always gets the same answer.
  let quote: FxQuote | undefined;
  if (parsed.ok && currency) {
    const charged = await chargedPrice(ctx.db, parsed.minor, currency, 'BRL', PRICE_WORDING.amountField);
    quote = charged.quote;
    if (charged.failure) failures.push(charged.failure);
  }
  if (failures.length > 0 || !parsed.ok || !currency || !quote || !person || !card) return { priced: undefined, failures };

  const installments = Math.max(1, input.payment.installments);
  // Per-scheme installment rates need the card's scheme; the payment keeps the plan as it applies to it.
  const scheme = installments > 1 && loaded.feePlan.installment_plan?.schemes ? await cardScheme(ctx.db, card.id) : null;
  const plan = forScheme(loaded.feePlan, scheme);
  const fees = computeFees(plan.payments, quote.convertedMinor, { installments, installmentInterestPpm: plan.installment_interest_ppm, installmentPlan: plan.installment_plan });
  const payment: NewPayment = {
    merchantId,
    contractId: input.contract_id,
    referenceId: input.reference_id,
    method: input.payment.method,
    personId: person.id,
    cardId: card.id,
    originalMinor: parsed.minor,
    originalCurrency: currency,
    price: quotedPrice(quote),
    plan,
    fees,
    installments,
    delayCapture: input.payment.delay_capture ?? false,
    softDescriptor: input.payment.soft_descriptor ?? null,
    extraData: input.extra_data,
    ipAddress: input.ip_address ?? null,
    ipCountry: ipCountries(ctx.config.geoipDatabase).countryOf(input.ip_address),
    notificationUrl: input.notification_url ?? null,
    authentication: input.authentication,
    subscriptionId: null,
    paymentToken: options.paymentToken,
    checkoutId: options.checkoutId ?? null,
    idempotencyKey: options.idempotencyKey ?? null,
    now: clockAt(loaded.merchant.clockOffsetMs),
  };
  return { priced: { payment, card, fees: fees.fees }, failures };
}

/** sendPayment's answer for a payment it stored: the worker is poked to send its authorisation. */
function stored(ctx: AppContext, payment: StoredPayment, priced: NonNullable<Checked['priced']>): SendPaymentResult {
  ctx.workerSignal.poke();
  return { payment, cardStatus: priced.card.status, customerFees: priced.fees.filter((f) => f.payer === 'CUSTOMER') };
}

/** sendPayment's answer for a payment that exists: its row, its card's status and the fees its customer pays. */
async function existingPayment(db: Db, merchantId: string, paymentToken: string): Promise<SendPaymentResult> {
  const payment = await db.selectFrom('payments').selectAll().where('merchant_id', '=', merchantId).where('payment_token', '=', paymentToken).executeTakeFirstOrThrow();
  const card = payment.card_id ? await db.selectFrom('cards').select('status').where('merchant_id', '=', merchantId).where('id', '=', payment.card_id).executeTakeFirst() : undefined;
  return {
    payment: payment as PaymentRow,
    cardStatus: card?.status ?? 'ACTIVE',
    customerFees: payment.fee_lines.filter((f) => f.payer === 'CUSTOMER').map((f) => ({ type: f.fee_type, payer: 'CUSTOMER', amountMinor: BigInt(f.amount_minor) }) as AppliedFee),
  };
}

/**
 * Sends a CREATED card payment to the processor, in the caller's transaction: PROCESSING, its
 * history line and event, and the authorisation (the operation and its job). The caller pokes the worker after committing.
 * @example const processing = await startCardPayment(trx, createdPayment, now);
 */
export async function startCardPayment(trx: Db, payment: PaymentRow, now: Date, authentication?: JobAuthentication): Promise<PaymentRow> {
  const processing = await changeStatus(trx, payment, 'PROCESSING', now);
  await requestOperation(trx, authorization(payment, authentication, now));
  return processing;
}

/**
 * Sends a payment stored with `sendLater` (PROCESSING, waiting for its due date) to the processor,
 * in the caller's transaction: its authorisation (the operation and its job), with no status change. The caller pokes the
 * worker after committing.
 * @example await sendWaitingPayment(trx, waitingPayment, now);
 */
export async function sendWaitingPayment(trx: Db, payment: PaymentRow, now: Date): Promise<PaymentRow> {
  await requestOperation(trx, authorization(payment, undefined, now));
  return payment;
}

/** A card's scheme (VISA, MASTER, …), for the installment rates of its scheme. */
async function cardScheme(db: Db, cardId: string): Promise<string | null> {
  return (await db.selectFrom('cards').select('scheme').where('id', '=', cardId).executeTakeFirst())?.scheme ?? null;
}
