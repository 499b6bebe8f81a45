import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import { sql } from 'kysely';
import { clockAt } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import type { Db } from '../db/database';
import { eventsInsertFrom } from '../events/outbox';
import { computeFees, DEFAULT_FEE_PLAN, type AppliedFee, type FeeBreakdown, type FeePlan } from '../fees/fee-plan';
import { convert, type FxQuote } from '../fees/fx';
import { ApiError, type ErrorKey } from '../http/errors';
import { enqueue, jobsInsertFrom } from '../jobs/queue';
import { batchCalls, onePer } from '../lib/batch';
import { jsonParameter } from '../lib/json';
import { isCurrency, parseAmount, CURRENCY_EXPONENTS, type Currency } from '../lib/money';
import { changeStatus, paymentEvent, type PaymentRow } from './payment-record';
import { PROCESS_PAYMENT_JOB, type ProcessPaymentJob } from './process-payment';
import { claimAuthentication } from '../three-ds/verify-authentication';
import { EXTRA_DATA_MAX_BYTES, type SendPaymentInput } from './schemas';

/** The smallest card payment, in BRL cents (spec: "not less than 1.00 in BRL"). */
export const MINIMUM_BRL_MINOR = 100n;

export interface SendPaymentResult {
  payment: PaymentRow;
  cardStatus: string;
  /** The customer-paid fees, for the response's customer_fees object. */
  customerFees: readonly AppliedFee[];
}

/**
 * `POST /checkout/sendPayment`: validate → load person and card → price (FX and fees) → store the
 * payment as PROCESSING with its fees, history and event, and enqueue its authorisation, all in one
 * transaction. The processor's answer arrives asynchronously (process-payment.ts).
 * @example const { payment } = await sendPayment(ctx, merchantId, body);
 */
export async function sendPayment(
  ctx: AppContext,
  merchantId: string,
  input: SendPaymentInput,
  options: { paymentToken?: string; idempotencyKey?: string | undefined; authenticationClaimed?: boolean } = {},
): Promise<SendPaymentResult> {
  const failures: { key: ErrorKey; description: string }[] = [];
  const fail = (key: ErrorKey, description: string) => failures.push({ key, description });
  // In live mode a method without a connector is refused before anything is read or stored.
  await ctx.connectors.requireMethod(merchantId, input.payment.method);

  const batchers = batchersOf(ctx.db);
  const idempotencyKey = options.idempotencyKey ?? null;
  const loaded = await batchers.loadContext({ merchantId, personId: input.public_person_id, cardId: input.public_card_id, idempotencyKey });
  // A retry after a crash: the first run committed its payment, which is the answer.
  if (loaded.existingToken) return existingPayment(ctx.db, merchantId, loaded.existingToken);
  if (input.contract_id !== loaded.contractId) fail('CONTRACT_INVALID', 'contract_id: is not a contract of this merchant.');

  const asset = input.payment.asset.toUpperCase();
  const currency = isCurrency(asset) ? asset : undefined;
  if (!currency) fail('CURRENCY_UNSUPPORTED', `payment.asset: ${input.payment.asset} is not supported; use BRL or one of ${Object.keys(CURRENCY_EXPONENTS).join(', ')}.`);
  const parsed = parseAmount(input.payment.amount, currency ? CURRENCY_EXPONENTS[currency] : 2, 2);
  if (!parsed.ok) {
    if (parsed.reason === 'TOO_MANY_DECIMALS') fail('AMOUNT_DECIMALS', 'payment.amount: Value must have a maximum of two decimal places.');
    else if (parsed.reason === 'TOO_LARGE') fail('FIELD_OUT_OF_RANGE', 'payment.amount: is larger than the maximum payment.');
    else fail('FIELD_FORMAT', 'payment.amount: must be a decimal number such as "10.50".');
  }
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
  if (!person) fail('PERSON_NOT_FOUND', 'public_person_id: person not found.');
  if (!card) fail('CARD_NOT_FOUND', 'public_card_id: card not found.');
  if (person && card && card.person_id !== person.id) fail('CARD_NOT_OF_PERSON', 'public_card_id: the card does not belong to this person.');
  if (card && card.status !== 'ACTIVE') fail('CARD_NOT_ACTIVE', 'public_card_id: the card is not ACTIVE.');

  // Amount rules come after shape rules so one bad request always gets the same answer.
  let quote: Awaited<ReturnType<typeof convert>> | undefined;
  if (parsed.ok && currency) {
    quote = await convert(ctx.db, parsed.minor, currency, 'BRL');
    if (quote.convertedMinor < MINIMUM_BRL_MINOR) fail('AMOUNT_BELOW_MINIMUM', 'payment.amount: must be at least 1.00 BRL.');
  }
  if (failures.length > 0 || !parsed.ok || !currency || !quote || !person || !card) throw ApiError.fields(failures);

  const plan = loaded.feePlan;
  const installments = Math.max(1, input.payment.installments);
  const fees = computeFees(plan.payments, quote.convertedMinor, { installments, installmentInterestPpm: plan.installment_interest_ppm });
  const now = clockAt(loaded.clockOffsetMs);

  // 3DS data is verified against the authentication that issued it, and claimed, before anything is
  // stored (three-ds/verify-authentication.ts); `POST /checkout/3ds/payment` has claimed its own already.
  const claim =
    input.authentication && !options.authenticationClaimed
      ? await claimAuthentication(ctx, input.authentication, { merchantId, cardId: card.id, amountMinor: parsed.minor, currency, now })
      : null;
  let payment: PaymentRow;
  try {
    payment = await batchers.insert({
      merchantId,
      contractId: input.contract_id,
      referenceId: input.reference_id,
      method: input.payment.method,
      personId: person.id,
      cardId: card.id,
      originalMinor: parsed.minor,
      originalCurrency: currency,
      quote,
      plan,
      fees,
      installments,
      delayCapture: input.payment.delay_capture ?? false,
      softDescriptor: input.payment.soft_descriptor ?? null,
      extraData: input.extra_data,
      ipAddress: input.ip_address ?? null,
      notificationUrl: input.notification_url ?? null,
      authentication: input.authentication,
      subscriptionId: null,
      paymentToken: options.paymentToken,
      idempotencyKey,
      now,
    }).catch(async (error: unknown) => {
      // Two runs of one key raced past the lease (a process that stalled longer than it): the unique
      // index let one payment in, and this run answers with it.
      if (idempotencyKey !== null && (error as { constraint?: string }).constraint === 'payments_idempotency_key_idx') {
        const raced = await ctx.db.selectFrom('payments').select('payment_token').where('merchant_id', '=', merchantId).where('idempotency_key', '=', idempotencyKey).executeTakeFirst();
        if (raced) return (await existingPayment(ctx.db, merchantId, raced.payment_token)).payment;
      }
      throw error;
    });
  } catch (error) {
    await claim?.release();
    throw error;
  }
  ctx.workerSignal.poke();
  return { payment, cardStatus: card.status, customerFees: fees.fees.filter((f) => f.payer === 'CUSTOMER') };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface ContextKey {
  merchantId: string;
  personId: string;
  cardId: string;
  idempotencyKey: string | null;
}

/** What sendPayment reads before pricing a payment. */
interface PaymentContext {
  contractId: string;
  clockOffsetMs: bigint;
  feePlan: FeePlan;
  person: { id: string } | undefined;
  card: { id: string; person_id: string; status: string } | undefined;
  /** The payment an earlier run of the same Idempotency-Key created, if any. */
  existingToken: string | null;
}

/**
 * Everything sendPayment reads, for many requests in one round trip: each merchant's contract and
 * clock, its fee plan, and the person and card (only the merchant's own: another merchant's are simply
 * absent).
 */
async function loadPaymentContexts(db: Db, keys: readonly ContextKey[]): Promise<PaymentContext[]> {
  const wanted = keys.map((key, n) => ({
    n,
    merchant_id: key.merchantId,
    person_id: UUID.test(key.personId) ? key.personId : null,
    card_id: UUID.test(key.cardId) ? key.cardId : null,
    idempotency_key: key.idempotencyKey,
  }));
  // The id lists let the planner look rows up by key whatever it guesses of the JSON's size.
  const ids = (pick: (k: (typeof wanted)[number]) => string | null) => [...new Set(wanted.map(pick).filter((id): id is string => id !== null))];
  const { rows } = await sql<{
    n: number;
    contract_id: string;
    clock_offset_ms: bigint;
    plan: FeePlan | null;
    person_id: string | null;
    card_id: string | null;
    card_person_id: string | null;
    card_status: string | null;
    existing_token: string | null;
  }>`
    select k.n, m.contract_id, m.clock_offset_ms, f.plan, p.id as person_id, c.id as card_id, c.person_id as card_person_id, c.status as card_status,
      x.payment_token as existing_token
    from jsonb_to_recordset(${jsonParameter(wanted)}::jsonb) as k(n integer, merchant_id uuid, person_id uuid, card_id uuid, idempotency_key text)
    join merchants as m on m.id = k.merchant_id and m.id = any(${ids((k) => k.merchant_id)}::uuid[])
    left join fee_plans as f on f.merchant_id = m.id
    left join persons as p on p.merchant_id = m.id and p.id = k.person_id and p.id = any(${ids((k) => k.person_id)}::uuid[])
    left join cards as c on c.merchant_id = m.id and c.id = k.card_id and c.id = any(${ids((k) => k.card_id)}::uuid[])
    left join payments as x on x.merchant_id = m.id and x.idempotency_key = k.idempotency_key
      and x.idempotency_key = any(${ids((k) => k.idempotency_key)}::text[])`.execute(db);
  const byKey = new Map(rows.map((row) => [row.n, row]));
  return keys.map((key, n) => {
    const row = byKey.get(n);
    if (!row) throw new Error(`merchant ${key.merchantId} not found`);
    return {
      contractId: row.contract_id,
      clockOffsetMs: row.clock_offset_ms,
      feePlan: row.plan ?? DEFAULT_FEE_PLAN,
      person: row.person_id ? { id: row.person_id } : undefined,
      card: row.card_id && row.card_person_id && row.card_status ? { id: row.card_id, person_id: row.card_person_id, status: row.card_status } : undefined,
      existingToken: row.existing_token,
    };
  });
}

/**
 * sendPayment's two statements, each shared by the requests that arrive in the same turn of the event
 * loop (lib/batch.ts): under load, one read and one insert serve many payments.
 */
const batchersOf = onePer((db: Db) => ({
  loadContext: batchCalls((keys: readonly ContextKey[]) => loadPaymentContexts(db, keys)),
  insert: batchCalls((inputs: readonly NewCardPayment[]) => insertCardPayments(db, inputs)),
}));

/** A priced card payment, ready to be stored (sendPayment and subscription charges build one). */
export interface NewCardPayment {
  merchantId: string;
  contractId: string;
  referenceId: string;
  method: 'CREDITCARD' | 'DEBITCARD';
  personId: string;
  cardId: string;
  originalMinor: bigint;
  originalCurrency: Currency;
  quote: FxQuote;
  plan: FeePlan;
  fees: FeeBreakdown;
  installments: number;
  delayCapture: boolean;
  softDescriptor: string | null;
  extraData: unknown;
  ipAddress: string | null;
  notificationUrl: string | null;
  authentication: ProcessPaymentJob['authentication'];
  subscriptionId: string | null;
  /** A token reserved in advance (a 3DS authentication's paymentToken, three-ds/); generated otherwise. */
  paymentToken?: string | undefined;
  /** The Idempotency-Key of the request that creates it, stored with it (unique per merchant). */
  idempotencyKey?: string | null | undefined;
  now: Date;
  /**
   * false stores the payment CREATED, to be sent later with startCardPayment; the default sends it now:
   * PROCESSING, with its authorisation enqueued.
   */
  start?: boolean;
  /**
   * true stores the payment PROCESSING, with its event, but without its authorisation job, which
   * sendWaitingPayment enqueues later: a subscription charge due on a later date, whose transaction the
   * spec shows PROCESSING from its creation.
   */
  sendLater?: boolean;
}

/**
 * Stores a card payment: the row (CREATED), its fees and history, and, unless `start` is false, the
 * move to PROCESSING with its event and (unless `sendLater`) the authorisation job. Atomic by itself, whether or not the
 * caller is in a transaction. The caller has validated and priced it, and pokes the worker after.
 * @example const payment = await insertCardPayment(trx, priced);
 */
export async function insertCardPayment(db: Db, input: NewCardPayment): Promise<PaymentRow> {
  const [created] = await insertCardPayments(db, [input]);
  if (!created) throw new Error('the payment insert returned no row');
  return created;
}

/**
 * Stores many card payments (see insertCardPayment) in one statement of data-modifying CTEs: the
 * service's busiest write, shared by the sendPayment requests that arrive together. Answers the stored
 * rows in the order of `inputs`.
 */
export async function insertCardPayments(db: Db, inputs: readonly NewCardPayment[]): Promise<PaymentRow[]> {
  const payments = inputs.map((input) => ({ input, row: paymentRow(input) }));
  const rows = payments.map((p) => p.row);
  const history = payments.flatMap(({ input, row }) =>
    (input.start === false ? ['CREATED'] : ['CREATED', 'PROCESSING']).map((status) => ({ payment_token: row.payment_token, status, at: input.now })),
  );
  const fees = payments.flatMap(({ input, row }) =>
    input.fees.fees.map((f) => ({ payment_token: row.payment_token, fee_type: f.type, payer: f.payer, amount_minor: f.amountMinor, currency: 'BRL' })),
  );
  const started = payments.filter(({ input }) => input.start !== false);
  const jobs = started.filter(({ input }) => !input.sendLater).map(({ input, row }) => ({ resourceId: row.payment_token, kind: PROCESS_PAYMENT_JOB, payload: authorizationJob(row, input.authentication) }));
  const columns = sql.join(Object.keys(rows[0] ?? {}).map((column) => sql.ref(column)));
  const { rows: stored } = await sql<PaymentRow>`
    with payment as (
      insert into payments (${columns})
      select ${columns} from jsonb_populate_recordset(null::payments, ${jsonParameter(rows)}::jsonb)
      returning *
    ),
    history as (
      insert into payment_status_history (payment_token, status, at)
      select h.payment_token, h.status, h.at
      from payment as p
      join jsonb_to_recordset(${jsonParameter(history.map((h, n) => ({ ...h, n })))}::jsonb) as h(n integer, payment_token uuid, status text, at timestamptz)
        on h.payment_token = p.payment_token
      order by h.n
    ),
    fees as (
      insert into payment_fees (payment_token, fee_type, payer, amount_minor, currency)
      select f.payment_token, f.fee_type, f.payer, f.amount_minor, f.currency
      from payment as p
      join jsonb_to_recordset(${jsonParameter(fees.map((f, n) => ({ ...f, n })))}::jsonb)
        as f(n integer, payment_token uuid, fee_type text, payer text, amount_minor bigint, currency text)
        on f.payment_token = p.payment_token
      order by f.n
    ),
    event as (${eventsInsertFrom('payment', 'payment_token', started.map(({ row }) => paymentEvent(row)))}),
    job as (${jobsInsertFrom('payment', 'payment_token', jobs)})
    select * from payment`.execute(db);
  const byToken = new Map(stored.map((row) => [row.payment_token, row]));
  return rows.map((row) => {
    const created = byToken.get(row.payment_token);
    if (!created) throw new Error(`the payment insert returned no row for ${row.payment_token}`);
    return created;
  });
}

/** A payment's row as stored (json columns as values: the statement reads them with jsonb_populate_recordset). */
function paymentRow(input: NewCardPayment) {
  const { now, fees, plan, quote } = input;
  const currency = input.originalCurrency;
  return {
    payment_token: input.paymentToken ?? randomUUID(),
    merchant_id: input.merchantId,
    contract_id: input.contractId,
    reference_id: input.referenceId,
    method: input.method,
    // A payment sent at once (or held for its due date) is stored PROCESSING directly (both moves are in its history).
    status: input.start === false ? 'CREATED' : 'PROCESSING',
    person_id: input.personId,
    card_id: input.cardId,
    original_amount_minor: input.originalMinor,
    original_currency: currency,
    amount_minor: quote.convertedMinor,
    currency: 'BRL',
    customer_fees_minor: fees.customerFeesMinor,
    merchant_fees_minor: fees.merchantFeesMinor,
    fee_rules: { payments: plan.payments, installment_interest_ppm: plan.installment_interest_ppm },
    fx_rate: currency === 'BRL' ? null : quote.rate,
    fx_rate_date: currency === 'BRL' ? null : quote.rateDate,
    installments: input.installments,
    delay_capture: input.delayCapture,
    soft_descriptor: input.softDescriptor,
    extra_data: input.extraData ?? null,
    ip_address: input.ipAddress,
    notification_url: input.notificationUrl,
    // The CAVV is a one-time cryptogram for the processor; only the non-secret 3DS facts are kept.
    authentication: input.authentication
      ? { eci: input.authentication.eci, version: input.authentication.version, dstrans_id: input.authentication.dstrans_id }
      : null,
    authorized_minor: 0n,
    captured_minor: 0n,
    refunded_minor: 0n,
    pending_capture_minor: null,
    processor_id: null,
    error_code: null,
    error_description: null,
    expires_at: null,
    end_to_end_id: null,
    subscription_id: input.subscriptionId,
    checkout_id: null,
    idempotency_key: input.idempotencyKey ?? null,
    created_at: now,
    updated_at: now,
  };
}

/** sendPayment's answer for a payment that exists: its row, its card's status and the fees its customer pays. */
async function existingPayment(db: Db, merchantId: string, paymentToken: string): Promise<SendPaymentResult> {
  const payment = await db.selectFrom('payments').selectAll().where('merchant_id', '=', merchantId).where('payment_token', '=', paymentToken).executeTakeFirstOrThrow();
  const card = payment.card_id ? await db.selectFrom('cards').select('status').where('merchant_id', '=', merchantId).where('id', '=', payment.card_id).executeTakeFirst() : undefined;
  const fees = await db.selectFrom('payment_fees').select(['fee_type', 'payer', 'amount_minor']).where('payment_token', '=', paymentToken).where('payer', '=', 'CUSTOMER').orderBy('id').execute();
  return {
    payment: payment as PaymentRow,
    cardStatus: card?.status ?? 'ACTIVE',
    customerFees: fees.map((f) => ({ type: f.fee_type, payer: 'CUSTOMER', amountMinor: f.amount_minor }) as AppliedFee),
  };
}

/** The CAVV rides in the job (deleted once processed) to reach the processor; it is not kept elsewhere. */
function authorizationJob(payment: Pick<PaymentRow, 'payment_token' | 'merchant_id'>, authentication: ProcessPaymentJob['authentication']): ProcessPaymentJob {
  return { paymentToken: payment.payment_token, merchantId: payment.merchant_id, step: 'authorize', authentication };
}

/**
 * Sends a CREATED card payment to the processor, in the caller's transaction: PROCESSING, its
 * history line and event, and the authorisation job. The caller pokes the worker after committing.
 * @example const processing = await startCardPayment(trx, createdPayment, now);
 */
export async function startCardPayment(trx: Db, payment: PaymentRow, now: Date, authentication?: ProcessPaymentJob['authentication']): Promise<PaymentRow> {
  const processing = await changeStatus(trx, payment, 'PROCESSING', now);
  await enqueue(trx, PROCESS_PAYMENT_JOB, authorizationJob(payment, authentication));
  return processing;
}

/**
 * Sends a payment stored with `sendLater` (PROCESSING, waiting for its due date) to the processor,
 * in the caller's transaction: its authorisation job, with no status change. The caller pokes the
 * worker after committing.
 * @example await sendWaitingPayment(trx, waitingPayment);
 */
export async function sendWaitingPayment(trx: Db, payment: PaymentRow): Promise<PaymentRow> {
  await enqueue(trx, PROCESS_PAYMENT_JOB, authorizationJob(payment, undefined));
  return payment;
}
