import { ECI_NOTES, eciOutcome } from '../processor/eci';
import fastJson from 'fast-json-stringify';
import { CompiledQuery } from 'kysely';
import { LRUCache } from 'lru-cache';
import { Counter } from 'prom-client';
import type { AppContext } from '../context';
import type { Db } from '../db/database';
import type { FeeLine } from '../db/tables/payments';
import { ApiError } from '../http/errors';
import { batchCalls, onePer } from '../lib/batch';
import { toJsonNumber } from '../lib/money';
import { formatDate, formatDateTime } from '../lib/time-format';
import { maskTaxId } from '../rails/brazil';
import { refundView } from '../refunds/refund-record';
import { type PaymentRow } from '../payments/payment-record';
import { methodCountry } from '../payments/methods';
import { exponentOf } from '../lib/currencies';
import { isUuid } from '../lib/identifiers';
import { processRegistry } from '../metrics/process-registry';
import { TransactionDetailsResponse } from '../payments/schemas';
import { OPEN_DISPUTE_STATUSES } from '../disputes/states';

/**
 * The version of everything a payment's details are made of: the transaction id (`xmin`) that wrote
 * the current version of each aggregate the answer reads: the payment, its person, its card, each of
 * its refunds and each of its disputes. PostgreSQL gives every new version of a row a new `xmin` (taking a row lock does not), and
 * an added refund lengthens the list, so any committed change to what the answer shows changes the
 * stamp, whichever process or path wrote it, with nothing to remember to bump.
 *
 * A payment's fee lines and status history are columns of its row (migration 0048), so the payment's
 * `xmin` covers them: nothing can change them without writing the row.
 */
const STAMP_SQL = `concat(p.xmin, '/', per.xmin, '/', c.xmin,
    '/', (select string_agg(r.xmin::text, ',' order by r.refund_id) from refunds as r where r.payment_token = p.payment_token),
    '/', (select string_agg(d.xmin::text, ',' order by d.dispute_id) from disputes as d where d.payment_token = p.payment_token))`;

/**
 * Everything transaction details shows, for many payments in one statement: the payment with its
 * person and card, its fee lines and history (columns of its row), and its refunds aggregated as JSON
 * through their index on `payment_token`, with the stamp of all of it. Amounts travel as text (exact, never through a
 * float) and times as epoch milliseconds, truncated as the driver truncates a timestamp, so every format
 * is applied by the one formatter of lib/time-format.ts. Written once as text: nothing is compiled per
 * request, and the connection prepares it (db/prepared-statements.ts).
 */
const DETAILS_SQL = `
select p.payment_token, p.merchant_id, p.contract_id, p.reference_id, p.method, p.status, p.person_id, p.ip_address, p.ip_country, p.authentication, p.installments,
  p.original_amount_minor, p.original_currency, p.amount_minor, p.currency, p.customer_fees_minor, p.merchant_fees_minor,
  p.captured_minor, p.refunded_minor, p.fx_rate, p.fx_rate_date, p.error_code, p.error_description, p.expires_at,
  p.end_to_end_id, p.subscription_id, p.created_at, ${STAMP_SQL} as stamp,
  per.name as person_name, per.email as person_email, per.tax_id_type as person_tax_id_type, per.tax_id as person_tax_id,
  c.masked_number as card_masked_number, c.scheme as card_scheme,
  p.fee_lines as fees,
  (select coalesce(json_agg(json_build_object('status', h.line ->> 'status', 'at_ms', floor(extract(epoch from (h.line ->> 'at')::timestamptz) * 1000)::bigint::text)
       order by (h.line ->> 'at')::timestamptz desc, h.position desc), '[]')
     from jsonb_array_elements(p.status_history) with ordinality as h(line, position)) as history,
  (select coalesce(json_agg(json_build_object(
       'refund_id', r.refund_id::text, 'created_at_ms', floor(extract(epoch from r.created_at) * 1000)::bigint::text, 'status', r.status,
       'amount_minor', r.amount_minor::text, 'currency', r.currency, 'error_code', r.error_code, 'error_description', r.error_description)
     order by r.refund_id), '[]')
     from refunds as r where r.payment_token = p.payment_token) as refunds,
  (select json_build_object('dispute_id', d.dispute_id, 'status', d.status)
     from disputes as d where d.payment_token = p.payment_token order by d.created_at desc, d.dispute_id limit 1) as dispute
from payments as p
left join persons as per on per.id = p.person_id
left join cards as c on c.id = p.card_id
where p.payment_token = any($1::uuid[])`;

type DetailsRow = Pick<
  PaymentRow,
  | 'payment_token'
  | 'merchant_id'
  | 'contract_id'
  | 'reference_id'
  | 'method'
  | 'status'
  | 'person_id'
  | 'ip_address'
  | 'ip_country'
  | 'authentication'
  | 'installments'
  | 'original_amount_minor'
  | 'original_currency'
  | 'amount_minor'
  | 'currency'
  | 'customer_fees_minor'
  | 'merchant_fees_minor'
  | 'captured_minor'
  | 'refunded_minor'
  | 'fx_rate'
  | 'fx_rate_date'
  | 'error_code'
  | 'error_description'
  | 'expires_at'
  | 'end_to_end_id'
  | 'subscription_id'
  | 'created_at'
> & {
  stamp: string;
  person_name: string | null;
  person_email: string | null;
  person_tax_id_type: string | null;
  person_tax_id: string | null;
  card_masked_number: string | null;
  card_scheme: string | null;
  fees: FeeLine[];
  history: { status: string; at_ms: string }[];
  refunds: { refund_id: string; created_at_ms: string; status: string; amount_minor: string; currency: string; error_code: string | null; error_description: string | null }[];
  /** The payment's latest dispute, if it has one. */
  dispute: { dispute_id: string; status: string } | null;
};

/** The stamps and owners of many payments, through the same indexes as the details statement, without building any JSON. */
const STAMPS_SQL = `
select p.payment_token, p.merchant_id, ${STAMP_SQL} as stamp
from payments as p
left join persons as per on per.id = p.person_id
left join cards as c on c.id = p.card_id
where p.payment_token = any($1::uuid[])`;

/**
 * A read of many payments by token in one statement (`text` takes the tokens as `$1`), shared by the
 * requests of one turn of the event loop (lib/batch.ts); each request gets its payment's row, or
 * undefined for no such payment.
 */
function sharedRead<R extends { payment_token: string }>(text: string) {
  return onePer((db: Db) =>
    batchCalls(async (tokens: readonly string[]) => {
      const { rows } = await db.executeQuery<R>(CompiledQuery.raw(text, [[...new Set(tokens)]]));
      const byToken = new Map(rows.map((row) => [row.payment_token, row]));
      return tokens.map((token) => byToken.get(token));
    }),
  );
}

const detailsOf = sharedRead<DetailsRow>(DETAILS_SQL);
const stampsOf = sharedRead<{ payment_token: string; merchant_id: string; stamp: string }>(STAMPS_SQL);

/** The answer serialised by the resource's own schema, as the route's serializer would. */
const serializeDetails = fastJson(TransactionDetailsResponse);

interface CachedDetails {
  stamp: string;
  json: string;
}

/**
 * Answers kept per database handle, as JSON text, with the stamp they were read at. Bounded by count
 * and by size (an answer is 1 to 3 KB; a payment with many refunds is larger): at most 16 MB.
 */
const cachesOf = onePer(
  (_db: Db) => new LRUCache<string, CachedDetails>({ max: 10_000, maxSize: 16 * 1024 * 1024, sizeCalculation: (entry) => entry.json.length + entry.stamp.length + 64 }),
);

/** Answers sent by this process, by whether the kept text served or the answer was built (docs/operations.md). */
const answers = new Counter({
  name: 'colibri_transaction_details_answers_total',
  help: 'Transaction details answers by source: kept (the stamp was unchanged) or built (first read, or the payment changed)',
  labelNames: ['source'],
  registers: [processRegistry],
});
const keptAnswers = answers.labels('kept');
const builtAnswers = answers.labels('built');

/**
 * `GET /transactionDetails/<payment_token>` as JSON text: every group and field of the spec's
 * Transaction details resource. Tax id and card number are masked; history is newest first; every
 * absent value is `null`. Each fee carries an `fxInfo` object (rate "1" when no conversion happened;
 * docs/payments.md).
 *
 * An answer is built once per version of the payment: the first read runs the details statement
 * (shared by the requests that arrive together) and keeps the serialised answer with its stamp; a later
 * read only reads the stamp (one indexed statement, also shared) and answers the kept text when it is
 * unchanged. The stamp is read from the database on every request, so an answer is never older than
 * the last committed change, whichever process made it.
 * @example return sendJson(reply, await transactionDetailsJson(ctx, merchantId, token)); // http/json-text.ts
 */
export async function transactionDetailsJson(ctx: AppContext, merchantId: string, paymentToken: string): Promise<string> {
  if (!isUuid(paymentToken)) throw notFound();
  const token = paymentToken.toLowerCase();
  const cache = cachesOf(ctx.db);
  const cached = cache.get(token);
  if (cached) {
    const current = await stampsOf(ctx.db)(token);
    if (current && current.stamp === cached.stamp) {
      // Another merchant's payment is not found, exactly like a missing one.
      if (current.merchant_id !== merchantId) throw notFound();
      keptAnswers.inc();
      return cached.json;
    }
  }
  const row = await detailsOf(ctx.db)(token);
  if (!row) {
    cache.delete(token);
    throw notFound();
  }
  const json = serializeDetails(presentDetails(row));
  cache.set(token, { stamp: row.stamp, json });
  if (row.merchant_id !== merchantId) throw notFound();
  builtAnswers.inc();
  return json;
}

function notFound(): ApiError {
  return new ApiError('NOT_FOUND', 'payment_token: payment not found.');
}

/**
 * What the payment's 3DS data says (its ECI, version and what the ECI means for the liability of a
 * fraud chargeback, processor/eci.ts), or null for a payment without 3DS data. No CAVV is kept.
 */
function threeDsView(stored: unknown) {
  const auth = typeof stored === 'string' ? (JSON.parse(stored) as unknown) : stored;
  if (!auth || typeof auth !== 'object') return null;
  const { eci, version } = auth as { eci?: unknown; version?: unknown };
  if (typeof eci !== 'string' || typeof version !== 'string') return null;
  const outcome = eciOutcome(eci) ?? 'NOT_AUTHENTICATED';
  return { eci, version, outcome, liability_shift: outcome === 'AUTHENTICATED', note: ECI_NOTES[outcome] };
}

function presentDetails(payment: DetailsRow) {
  const exponent = exponentOf(payment.currency);
  const money = (minor: bigint) => toJsonNumber(minor, exponent);
  const customerFeesMinor = payment.customer_fees_minor;
  const merchantFeesMinor = payment.merchant_fees_minor;
  const chargedMinor = payment.captured_minor > 0n ? payment.captured_minor : payment.amount_minor;
  const converted = payment.original_currency !== payment.currency && payment.fx_rate !== null;
  const taxIdType = payment.person_tax_id_type;
  const maskedTaxId = taxIdType && payment.person_tax_id !== null ? maskTaxId(taxIdType as 'CPF' | 'CNPJ', payment.person_tax_id) : null;
  return {
    general_info: {
      transaction_status: payment.status,
      transaction_id: payment.payment_token,
      external_id: payment.reference_id,
      project_id: payment.contract_id,
    },
    customer_info: {
      customer_id: payment.person_id,
      tax_id: maskedTaxId,
      tax_id_type: taxIdType,
      payer_tax_id: maskedTaxId,
      payer_tax_id_type: taxIdType,
      payer_name: payment.person_name,
      customer_contact: payment.person_email,
      order_ip: payment.ip_address,
      // Looked up when the payment was created (lib/ip-country.ts); null for a private or unknown address.
      order_ip_country: payment.ip_country,
    },
    payment_info: {
      order_method: payment.method,
      // The country where the method is paid: MX for OXXO, PAYNET and SPEI, BR for the others.
      order_method_country: methodCountry(payment.method),
      card_number: payment.card_masked_number,
      card_scheme: payment.card_scheme,
      // The order as the merchant placed it, in its own currency; a capture or a refund never changes it.
      order_amount: toJsonNumber(payment.original_amount_minor, exponentOf(payment.original_currency)),
      order_currency: payment.original_currency,
      // What the customer is charged: the captured amount once captured (in full or in part), the
      // authorised one before, plus the customer fees priced on that amount.
      payment_amount: money(chargedMinor + customerFeesMinor),
      payment_currency: payment.currency,
      refunded_amount: money(payment.refunded_minor),
      error_code: payment.error_code,
      error_description: payment.error_description,
      expiration_date: payment.expires_at ? formatDateTime(payment.expires_at) : null,
      end_to_end_id: payment.end_to_end_id,
      subscription_id: payment.subscription_id,
      // Beyond the spec: the number of installments (1 for none); their interest is the INSTALLMENT_INTEREST customer fee.
      installments: Math.max(1, payment.installments),
      // DISPUTED while a dispute of the payment waits for a response or a ruling (docs/disputes.md).
      flags: payment.dispute && OPEN_DISPUTE_STATUSES.includes(payment.dispute.status as never) ? ['DISPUTED'] : [],
    },
    fee_info: {
      total_fee_values: money(merchantFeesMinor + customerFeesMinor),
      merchant_amount: money(merchantFeesMinor),
      // A DECLINED or ERROR payment has none: its fees are dropped when it ends so (payment-record.ts).
      fee: payment.fees.map((f) => ({
        fee_type: f.fee_type,
        payer: f.payer,
        value: toJsonNumber(BigInt(f.amount_minor), exponent),
        currency: payment.currency,
        fxInfo: {
          original_currency: payment.original_currency,
          counter_currency: payment.currency,
          rate: converted ? (payment.fx_rate as string) : '1',
          rate_timestemp: (converted ? payment.fx_rate_date : null) ?? formatDate(payment.created_at),
        },
      })),
    },
    // The payment's latest dispute, open or closed (GET /disputes/<dispute_id>).
    other_info: { dispute_id: payment.dispute?.dispute_id ?? null, three_ds: threeDsView(payment.authentication) },
    transaction_history: payment.history.map((h) => ({ status: h.status, timestamp: formatDateTime(new Date(Number(h.at_ms))) })),
    // Beyond the spec's groups: the payment's refunds, oldest first (docs/refunds.md), as GET /refund/<id> shows them.
    refunds: payment.refunds.map((r) =>
      refundView({
        refund_id: BigInt(r.refund_id),
        payment_token: payment.payment_token,
        created_at: new Date(Number(r.created_at_ms)),
        status: r.status,
        amount_minor: BigInt(r.amount_minor),
        currency: r.currency,
        error_code: r.error_code,
        error_description: r.error_description,
      }),
    ),
  };
}
