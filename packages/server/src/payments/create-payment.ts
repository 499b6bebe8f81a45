import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database';
import { eventsInsertFrom, recordEvent } from '../events/outbox';
import { paymentFeeRules, type FeeBreakdown, type FeePlan, type PaymentFeeRules } from '../fees/fee-plan';
import type { FxQuote } from '../fees/fx';
import { ApiError } from '../http/errors';
import { enqueueMany, jobsInsertFrom } from '../jobs/queue';
import { jsonRows } from '../lib/json';
import type { PaymentMethodName } from '../processor/processor';
import { paymentFollowUps } from './payment-followups';
import { changeStatus, feeLines, historyLine, lockPayment, paymentEvent, type PaymentRow } from './payment-record';
import { describeOperation, requestOperation, type NewOperation } from './operations';
import type { JobAuthentication } from './payment-job';
import { timeOrderedId } from '../lib/identifiers';

/**
 * The one way a payment row comes to exist, for every method: cards (sendPayment, subscription
 * charges) and the code methods of hosted checkout (PIX, boleto, OXXO, PAYNET, SPEI, PicPay). A payment
 * is stored with its fee lines and status history (in its row), its event, for a card sent now its authorisation job, and for a
 * payment of a hosted checkout session its follow-up job (payment-followups.ts), atomically. Two forms of one function write the same rows: createPayment, plain statements for one
 * payment, and createPayments, one shared statement for the sendPayment requests of one turn of the
 * event loop (the service's busiest write, see docs/architecture.md).
 */

/** What a payment charges, in its own currency, and the FX rate it was converted at (none when it was not converted). */
export interface PaymentPrice {
  amountMinor: bigint;
  currency: string;
  fxRate: string | null;
  fxRateDate: string | null;
}

/**
 * The price of a payment converted by `quote` (a payment in the currency it charges keeps no rate).
 * @example quotedPrice(await convert(db, 1000n, 'USD', 'BRL')) // { amountMinor: 5341n, currency: 'BRL', fxRate: '5.3412', … }
 */
export function quotedPrice(quote: FxQuote): PaymentPrice {
  const converted = quote.originalCurrency !== quote.counterCurrency;
  return { amountMinor: quote.convertedMinor, currency: quote.counterCurrency, fxRate: converted ? quote.rate : null, fxRateDate: converted ? quote.rateDate : null };
}

/**
 * How a payment starts:
 * - `authorize` (a card sent now): PROCESSING, announced, with its authorisation job;
 * - `hold`: PROCESSING and announced, without the job, which sendWaitingPayment enqueues on the due
 *   date (a subscription charge due later, whose transaction the spec shows PROCESSING from creation);
 * - `await-payer` (a code method): CREATED and announced, since the payer pays it later;
 * - `draft`: CREATED, not announced, to be sent later with startCardPayment.
 */
export type PaymentStart = 'authorize' | 'hold' | 'await-payer' | 'draft';

/** A validated and priced payment, ready to be stored. */
export interface NewPayment {
  merchantId: string;
  contractId: string;
  referenceId: string;
  method: Exclude<PaymentMethodName, 'PAYOUT'>;
  /** The customer and card of a card payment; null for a code payment. */
  personId: string | null;
  cardId: string | null;
  originalMinor: bigint;
  originalCurrency: string;
  price: PaymentPrice;
  plan: PaymentFeeRules;
  fees: FeeBreakdown;
  installments: number;
  delayCapture: boolean;
  softDescriptor: string | null;
  extraData: unknown;
  ipAddress: string | null;
  /** The country of ipAddress (lib/ip-country.ts), looked up by the caller; null or absent for none. */
  ipCountry?: string | null;
  notificationUrl: string | null;
  authentication: JobAuthentication | undefined;
  subscriptionId: string | null;
  /** The hosted checkout session of a code payment, or of a card payment sent from the session's page. */
  checkoutId?: string | null | undefined;
  /** Until when a code payment may be paid. */
  expiresAt?: Date | null | undefined;
  /** A token reserved in advance (a 3DS authentication's paymentToken, three-ds/); generated otherwise. */
  paymentToken?: string | undefined;
  /** The Idempotency-Key of the request that creates it, stored with it (unique per merchant). */
  idempotencyKey?: string | null | undefined;
  now: Date;
  /** Default `authorize`. */
  start?: PaymentStart | undefined;
}

/**
 * Stores one payment with plain statements: the row (its fee lines and history in it), its event and its job (see
 * PaymentStart), atomic by itself whether or not the caller is in a transaction. The caller has
 * validated and priced it, and pokes the worker after committing.
 * @example const payment = await createPayment(trx, { ...priced, start: 'await-payer' });
 */
export async function createPayment(db: Db, input: NewPayment): Promise<PaymentRow> {
  if (!db.isTransaction) return db.transaction().execute((trx) => createPayment(trx, input));
  const { row, event, operation } = describePayment(input);
  const payment = await db
    .insertInto('payments')
    .values({
      ...row,
      fee_rules: jsonText(row.fee_rules),
      extra_data: jsonText(row.extra_data),
      authentication: jsonText(row.authentication),
      status_history: JSON.stringify(row.status_history),
      fee_lines: JSON.stringify(row.fee_lines),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  if (event) await recordEvent(db, event);
  if (operation) {
    await db.insertInto('payment_operations').values(operation.row).execute();
    await enqueueMany(db, [operation.job]);
  }
  await enqueueMany(db, paymentFollowUps(payment));
  return payment;
}

/**
 * What createPayments answers of each payment it stored: the columns its callers read (sendPayment's
 * answer, a hosted checkout's card attempt), as stored. Not the whole row: parsing about 60 columns back
 * per payment, three of them JSON, was more of the API process's time than building the row
 * (docs/performance.md, "eighth session").
 */
export const STORED_PAYMENT_COLUMNS = [
  'payment_token',
  'merchant_id',
  'status',
  'method',
  'person_id',
  'card_id',
  'checkout_id',
  'amount_minor',
  'currency',
  'customer_fees_minor',
  'original_amount_minor',
  'original_currency',
] as const satisfies readonly (keyof PaymentRow)[];

/** A payment as createPayments answers it (STORED_PAYMENT_COLUMNS). */
export type StoredPayment = Pick<PaymentRow, (typeof STORED_PAYMENT_COLUMNS)[number]>;

/**
 * Stores many payments (see createPayment) in one statement of data-modifying CTEs: the insert that
 * sendPayment's requests of one turn share (lib/batch.ts). Answers the stored payments (StoredPayment) in the order of `inputs`.
 * @example const [first, second] = await createPayments(db, [priced, pricedToo]);
 */
export async function createPayments(db: Db, inputs: readonly NewPayment[]): Promise<StoredPayment[]> {
  const stored = await insertPayments(db, inputs);
  return inputs.map((_, n) => {
    const created = stored[n];
    if (!created) throw new Error(`the payment insert returned no row for payment ${n} of ${inputs.length}`);
    return created;
  });
}

/**
 * What a card payment priced without reading its context assumed (sendPayment's one round trip,
 * payments/hot-path.ts): its merchant's contract, clock and fee plan as last read (`plan` null when the
 * merchant had no plan of its own), and that its card is an ACTIVE card of its person, both the merchant's.
 */
export interface AssumedContext {
  contractId: string;
  clockOffsetMs: bigint;
  plan: FeePlan | null;
}

/**
 * createPayments for card payments priced on an assumed context: the statement stores, with its
 * operation, event and job, only each payment whose assumptions still hold in the database at the
 * insert (the merchant's contract, clock and fee plan unchanged, the card an ACTIVE card of the
 * person, both the merchant's), and answers null for the others, which wrote nothing. The check and
 * the insert are one statement, so a plan or card changed before it is seen, and one changed after it
 * is changed after the payment, as with a read before the insert.
 * @example const [stored] = await createPaymentsIfCurrent(db, [{ payment: priced, assumed }]); // null: read the context and price again
 */
export async function createPaymentsIfCurrent(db: Db, items: readonly { payment: NewPayment; assumed: AssumedContext }[]): Promise<(StoredPayment | null)[]> {
  // Each payment is checked against the facts it was priced on: requests of one merchant may carry two
  // sets when what the process remembers changed between them. Each set is sent once, numbered.
  const numbered = new Map<AssumedContext, number>();
  const facts: object[] = [];
  const numbers = items.map(({ payment, assumed }) => {
    let n = numbered.get(assumed);
    if (n === undefined) {
      n = numbered.size;
      numbered.set(assumed, n);
      facts.push({ n, merchant_id: payment.merchantId, contract_id: assumed.contractId, clock_offset_ms: assumed.clockOffsetMs, plan: assumed.plan });
    }
    return n;
  });
  const stored = await insertPayments(
    db,
    items.map((item) => item.payment),
    (tokens) => sql`where (r.payment_token, r.merchant_id) in (
        select a.payment_token, g.merchant_id
        from json_to_recordset(${jsonRows(tokens.map((token, n) => ({ payment_token: token, n: numbers[n] })))}::json) as a(payment_token uuid, n integer)
        join json_to_recordset(${jsonRows(facts)}::json) as g(n integer, merchant_id uuid, contract_id text, clock_offset_ms bigint, plan jsonb) on g.n = a.n
        join merchants as m on m.id = g.merchant_id and m.contract_id = g.contract_id and m.clock_offset_ms = g.clock_offset_ms
        left join fee_plans as f on f.merchant_id = m.id
        where f.plan is not distinct from g.plan)
      and exists (
        select from cards as c join persons as p on p.id = c.person_id and p.merchant_id = c.merchant_id
        where c.id = r.card_id and c.id = any(${items.map(({ payment }) => payment.cardId)}::uuid[])
          and c.merchant_id = r.merchant_id and c.person_id = r.person_id and c.status = 'ACTIVE')`,
  );
  return items.map((_, n) => stored[n] ?? null);
}

/**
 * The shared statement of createPayments and createPaymentsIfCurrent: the stored payments by position in
 * `inputs`, absent where the condition `where` makes of the payments' tokens (on `r`, the new row) left one out.
 */
async function insertPayments(db: Db, inputs: readonly NewPayment[], where?: (tokens: readonly string[]) => RawBuilder<unknown>): Promise<(StoredPayment | undefined)[]> {
  const payments = inputs.map(describePayment);
  const rows = payments.map((p) => p.row);
  const events = payments.flatMap((p) => (p.event ? [p.event] : []));
  const operations = payments.flatMap((p) => (p.operation ? [p.operation.row] : []));
  const jobs = payments.flatMap((p) => [...(p.operation ? [p.operation.job] : []), ...paymentFollowUps(p.row)]);
  const columns = columnList(Object.keys(rows[0] ?? {}));
  const { rows: stored } = await sql<StoredPayment>`
    with payment as (
      insert into payments (${columns})
      select ${columns} from json_populate_recordset(null::payments, ${jsonRows(rows)}::json) as r
      ${where ? where(rows.map((row) => row.payment_token)) : sql``}
      returning ${columnList(STORED_PAYMENT_COLUMNS)}
    ),
    operation as (
      insert into payment_operations (id, payment_token, merchant_id, kind, amount_minor, reference, reason, idempotency_key, requested_at)
      select o.id, o.payment_token, o.merchant_id, o.kind, o.amount_minor, o.reference, o.reason, o.idempotency_key, o.requested_at
      from payment as p
      join json_to_recordset(${jsonRows(operations)}::json) as o(id uuid, payment_token uuid, merchant_id uuid, kind text, amount_minor bigint,
        reference text, reason text, idempotency_key text, requested_at timestamptz)
        on o.payment_token = p.payment_token
    ),
    event as (${eventsInsertFrom('payment', 'payment_token', events)}),
    job as (${jobsInsertFrom('payment', 'payment_token', jobs)})
    select * from payment`.execute(db);
  const byToken = new Map(stored.map((row) => [row.payment_token, row]));
  return rows.map((row) => byToken.get(row.payment_token));
}

/**
 * A list of payment columns as one SQL fragment, made once per list. Kysely builds, freezes and compiles
 * a node per `sql.ref`, and the shared insert's 53 references were most of the time compiling it took in
 * the API process (docs/performance.md, "eighth session"). The names are this module's own (paymentRow's
 * keys and STORED_PAYMENT_COLUMNS), checked once as plain column names.
 */
function columnList(columns: readonly string[]): RawBuilder<unknown> {
  const key = columns.join(',');
  let list = COLUMN_LISTS.get(key);
  if (!list) {
    const unusual = columns.find((column) => !/^[a-z_][a-z0-9_]*$/.test(column));
    if (unusual !== undefined) throw new Error(`not a plain column name: ${JSON.stringify(unusual)}`);
    list = sql.raw(columns.map((column) => `"${column}"`).join(', '));
    COLUMN_LISTS.set(key, list);
  }
  return list;
}

const COLUMN_LISTS = new Map<string, RawBuilder<unknown>>();

/**
 * Sends a card payment that waits CREATED for its card: the payment a single-method card checkout opens
 * at generation (checkout/start-attempt.ts), now that the shopper has entered the card on the page. In
 * the caller's transaction, or one of its own: lock the payment and check that it still waits (CREATED,
 * this method, no card yet) → give it the person, the card and the price sendPayment worked out
 * (installments change the fees, so its fee lines are written again) → CREATED → PROCESSING with its
 * history line, event and authorisation job. From there it is processed like any sendPayment. The
 * caller pokes the worker after committing.
 * @example const processing = await sendWaitingCardPayment(ctx.db, { ...priced, paymentToken });
 */
export async function sendWaitingCardPayment(db: Db, input: NewPayment & { paymentToken: string }): Promise<PaymentRow> {
  if (!db.isTransaction) return db.transaction().execute((trx) => sendWaitingCardPayment(trx, input));
  const waiting = await lockPayment(db, input.merchantId, input.paymentToken);
  if (!waiting) throw new Error(`invariant: the waiting payment ${input.paymentToken} exists`);
  if (waiting.status !== 'CREATED' || waiting.card_id !== null || waiting.method !== input.method) {
    throw new ApiError('CHECKOUT_NOT_OPEN', undefined, { message: `The payment is ${waiting.status}; only a ${input.method} payment still waiting for its card can be sent.` });
  }
  const { row } = describePayment(input);
  const priced = await db
    .updateTable('payments')
    .set({
      person_id: row.person_id,
      card_id: row.card_id,
      original_amount_minor: row.original_amount_minor,
      original_currency: row.original_currency,
      amount_minor: row.amount_minor,
      currency: row.currency,
      customer_fees_minor: row.customer_fees_minor,
      merchant_fees_minor: row.merchant_fees_minor,
      fee_rules: jsonText(row.fee_rules),
      fee_lines: JSON.stringify(row.fee_lines),
      fx_rate: row.fx_rate,
      fx_rate_date: row.fx_rate_date,
      installments: row.installments,
      delay_capture: row.delay_capture,
      soft_descriptor: row.soft_descriptor,
      extra_data: jsonText(row.extra_data),
      ip_address: row.ip_address,
      ip_country: row.ip_country,
      authentication: jsonText(row.authentication),
      idempotency_key: row.idempotency_key,
      updated_at: input.now,
    })
    .where('payment_token', '=', waiting.payment_token)
    .returningAll()
    .executeTakeFirstOrThrow();
  const processing = await changeStatus(db, priced, 'PROCESSING', input.now);
  await requestOperation(db, authorization(processing, input.authentication, input.now));
  return processing;
}

/** A JSON column's value as text for a plain insert; SQL null for none (as json_populate_recordset reads a JSON null). */
function jsonText(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

/** Everything one payment writes, computed once for both forms. */
function describePayment(input: NewPayment) {
  const start = input.start ?? 'authorize';
  const row = paymentRow(input, start === 'authorize' || start === 'hold' ? 'PROCESSING' : 'CREATED');
  return {
    row,
    event: start === 'draft' ? undefined : paymentEvent(row),
    operation: start === 'authorize' ? describeOperation(authorization(row, input.authentication, input.now)) : undefined,
  };
}

/** A payment's row as stored (json columns as values). */
function paymentRow(input: NewPayment, status: 'CREATED' | 'PROCESSING') {
  const { now, fees, price } = input;
  return {
    payment_token: input.paymentToken ?? timeOrderedId(),
    merchant_id: input.merchantId,
    contract_id: input.contractId,
    reference_id: input.referenceId,
    method: input.method,
    // A payment sent at once (or held for its due date) is stored PROCESSING directly (both moves are in its history).
    status,
    status_history: (status === 'PROCESSING' ? ['CREATED', 'PROCESSING'] : ['CREATED']).map((s) => historyLine(s, now)),
    person_id: input.personId,
    card_id: input.cardId,
    original_amount_minor: input.originalMinor,
    original_currency: input.originalCurrency,
    amount_minor: price.amountMinor,
    currency: price.currency,
    customer_fees_minor: fees.customerFeesMinor,
    merchant_fees_minor: fees.merchantFeesMinor,
    fee_rules: paymentFeeRules(input.plan),
    fee_lines: feeLines(fees.fees),
    fx_rate: price.fxRate,
    fx_rate_date: price.fxRateDate,
    installments: input.installments,
    delay_capture: input.delayCapture,
    soft_descriptor: input.softDescriptor,
    extra_data: input.extraData ?? null,
    ip_address: input.ipAddress,
    ip_country: input.ipCountry ?? null,
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
    expires_at: input.expiresAt ?? null,
    end_to_end_id: null,
    subscription_id: input.subscriptionId,
    checkout_id: input.checkoutId ?? null,
    idempotency_key: input.idempotencyKey ?? null,
    created_at: now,
    updated_at: now,
  };
}

/**
 * The authorisation a card payment asks of the processor: what its customer pays (the amount and the
 * customer's fees). The CAVV rides in its job (deleted once processed) to reach the processor; it is
 * not kept elsewhere.
 * @example await requestOperation(trx, authorization(payment, undefined, now));
 */
export function authorization(
  payment: Pick<PaymentRow, 'payment_token' | 'merchant_id' | 'amount_minor' | 'customer_fees_minor'>,
  authentication: JobAuthentication | undefined,
  at: Date,
): NewOperation {
  return { payment, kind: 'authorize', amountMinor: payment.amount_minor + payment.customer_fees_minor, at, authentication };
}

/**
 * A card payment made through a hosted checkout joins its session (if it was not created in it), which
 * is told with the payment's follow-up job (payment-followups.ts). Debit pays through a 3DS
 * authentication that lent the page's address as its notification URL; `dropNotificationUrl` takes
 * it off the payment of a session that has no URL of its own, so no callback is ever posted to the page.
 * @example await joinCheckout(trx, payment.payment_token, session.checkout_id);
 */
export async function joinCheckout(db: Db, paymentToken: string, checkoutId: string): Promise<void> {
  const joined = await db
    .updateTable('payments')
    .set({ checkout_id: checkoutId })
    .where('payment_token', '=', paymentToken)
    .returning(['payment_token', 'merchant_id', 'checkout_id', 'status'])
    .executeTakeFirst();
  if (joined) await enqueueMany(db, paymentFollowUps(joined));
}

/** See joinCheckout. @example if (!session.notification_url) await dropNotificationUrl(db, payment.payment_token); */
export async function dropNotificationUrl(db: Db, paymentToken: string): Promise<void> {
  await db.updateTable('payments').set({ notification_url: null }).where('payment_token', '=', paymentToken).execute();
}
