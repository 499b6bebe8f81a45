import { sql, type RawBuilder } from 'kysely';
import type { CardsTable, PersonsTable } from '../db/schema';
import { METHOD_MARKET, PAYMENT_METHODS } from '../payments/methods';
import { CURRENCIES as CURRENCY_CODES } from '../lib/currencies';
import { PAYMENT_STATUSES } from '../payments/states';
import type { PaymentsTable } from '../db/tables/payments';
import type { PayoutsTable } from '../db/tables/payouts';
import type { DisputesTable } from '../db/tables/disputes';
import type { SettlementsTable } from '../db/tables/settlements';
import { SETTLEMENT_STATUSES } from '../settlements/states';
import { DISPUTE_REASON_CATEGORIES, DISPUTE_STAGES, DISPUTE_STATUSES } from '../disputes/states';
import { ACCOUNT_TYPES, TAX_ID_TYPES } from '../payouts/validation/types';
import type { AggregationOperator, FilterOperator, ReportType } from './report-definition';

/**
 * The field catalogue: every field a report can show, filter, group or order by, with its integer id
 * (the `field.id` of columns and filters), its type, the report types that may use it, and the SQL
 * that reads it. docs/reports.md carries the same table, rendered by `renderCatalogueTable` (a test
 * keeps the two equal).
 *
 * Dispute fields read the payment's latest dispute, one subquery each through its index on the payment.
 *
 * Report rows come from one of two sources. A PAYIN report reads the merchant's payments (with their
 * person, card and fees); a MERCHANT report reads every money movement of the merchant: its payments,
 * its payouts and its settlements (what Colibri paid into its bank account: a merchant reconciles its
 * bank statement against them), one row each, told apart by the `transaction_type` field. A field that has no
 * meaning for a source reads as null there (a card scheme on a payout row).
 *
 * The SQL here is written by us and names columns through typed helpers, so a renamed column fails
 * the type check. Nothing a client sends ever becomes SQL text: clients name fields by id, and the id
 * selects one of these expressions; filter values travel as query parameters (compile-report.ts).
 */

export type FieldType = 'string' | 'enum' | 'number' | 'money' | 'date';
export type FieldGroup = 'transaction' | 'customer' | 'payment' | 'fee' | 'payout' | 'dispute' | 'balance';

export interface CatalogueField {
  readonly id: number;
  /** A stable machine name, shown in docs/reports.md and in error descriptions. */
  readonly name: string;
  readonly group: FieldGroup;
  readonly type: FieldType;
  readonly description: string;
  /** The allowed values of an `enum` field. */
  readonly values?: readonly string[];
  /** The field holding the currency of a `money` field; amounts are shown with that currency's decimals. */
  readonly currencyField?: number;
  readonly reportTypes: readonly ReportType[];
  /** The value on a payment row (aliases `p` payments, `pe` persons, `c` cards), or null for none. */
  readonly payin: RawBuilder<unknown> | null;
  /** The value on a payout row (alias `po`), or null for none. */
  readonly payout: RawBuilder<unknown> | null;
  /** The value on a settlement row (alias `st`) of a MERCHANT report; none when absent. */
  readonly settlement?: RawBuilder<unknown> | null;
  /** A masked field (tax ids, account numbers): shown masked, never filtered, grouped or ordered by. */
  readonly masked?: boolean;
  /**
   * A string field whose values Colibri generates from letters, digits, `-` and `*` only (ids, masked
   * card numbers), like every enum, date, amount and number, and like masked values. Such values need
   * no CSV quoting or JSON escaping, so they are written into the export text as they are.
   */
  readonly plain?: boolean;
}

/** The SQL type of each field type: both sources of a MERCHANT report must agree on it (union all). */
export const SQL_TYPES: Readonly<Record<FieldType, string>> = {
  string: 'text',
  enum: 'text',
  number: 'integer',
  money: 'bigint',
  date: 'timestamptz',
};

/** The filter operators each field type accepts. */
export const OPERATORS_BY_TYPE: Readonly<Record<FieldType, readonly FilterOperator[]>> = {
  string: ['=', '!=', 'CONTAINS', 'STARTS_WITH', 'IS_NULL', 'IS_NOT_NULL'],
  enum: ['=', '!=', 'IN', 'IS_NULL', 'IS_NOT_NULL'],
  number: ['=', '!=', '<', '<=', '>', '>=', 'IS_NULL', 'IS_NOT_NULL'],
  money: ['=', '!=', '<', '<=', '>', '>=', 'IS_NULL', 'IS_NOT_NULL'],
  date: ['=', '!=', '<', '<=', '>', '>=', 'IS_NULL', 'IS_NOT_NULL'],
};

/** The aggregation operators each field type accepts. */
export const AGGREGATIONS_BY_TYPE: Readonly<Record<FieldType, readonly AggregationOperator[]>> = {
  string: ['COUNT'],
  enum: ['COUNT'],
  number: ['SUM', 'COUNT', 'AVG', 'MIN', 'MAX'],
  money: ['SUM', 'COUNT', 'AVG', 'MIN', 'MAX'],
  date: ['COUNT', 'MIN', 'MAX'],
};

// Column references checked against the table types, so a renamed column is a compile error.
const p = (column: keyof PaymentsTable & string) => sql.ref(`p.${column}`);
const pe = (column: keyof PersonsTable & string) => sql.ref(`pe.${column}`);
const c = (column: keyof CardsTable & string) => sql.ref(`c.${column}`);
const po = (column: keyof PayoutsTable & string) => sql.ref(`po.${column}`);
const st = (column: keyof SettlementsTable & string) => sql.ref(`st.${column}`);

/** The sum of the nets of a source's balance transactions of one type (balance/, docs/balance-and-settlements.md). */
function balanceNet(sourceId: RawBuilder<unknown>, type: 'PAYMENT' | 'PAYOUT' | 'SETTLEMENT'): RawBuilder<bigint> {
  return sql<bigint>`(select coalesce(sum(bt.net_minor), 0)::bigint from balance_transactions as bt where bt.source_id = ${sourceId} and bt.type = ${sql.lit(type)})`;
}

/**
 * Masked fields. The database masks them, so the full value never reaches an export, and cheaply:
 * a length check and two substrings per row (a regular expression per row made masking the single
 * most expensive part of an export). The masks rely on the stored form: the vault stores a CPF as its
 * 11 digits and a CNPJ as its 14 characters, for which these give exactly what `maskTaxId` gives in
 * transaction details; a value of any other length is masked whole, so nothing unexpected can leak.
 * A masked field is display-only: it cannot be filtered, grouped or ordered by (each would reveal
 * the hidden characters), only shown or counted.
 */
/** @example sql`select ${maskedTaxId(sql.ref('pe.tax_id_type'), sql.ref('pe.tax_id'))}` // '***.982.247-**' for CPF 52998224725 */
export function maskedTaxId(type: RawBuilder<unknown>, value: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`case
    when ${type} = 'CPF' then case when length(${value}) = 11 then '***.' || substr(${value}, 4, 3) || '.' || substr(${value}, 7, 3) || '-**' else '***.***.***-**' end
    when ${type} = 'CNPJ' then case when length(${value}) = 14 then '**.' || substr(${value}, 3, 3) || '.' || substr(${value}, 6, 3) || '/****-**' else '**.***.***/****-**' end
    when length(${value}) >= 6 then repeat('*', length(${value}) - 3) || right(${value}, 3)
    else repeat('*', length(${value})) end`;
}

/**
 * A bank account number with only its last four digits shown (all masked when it is that short).
 * @example sql`select ${maskedAccountNumber(sql.ref('po.account_number'))}` // '*********7890' for 0021234567890
 */
export function maskedAccountNumber(value: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`case when length(${value}) > 6 then repeat('*', length(${value}) - 4) || right(${value}, 4) else repeat('*', length(${value})) end`;
}

/** The total of one fee type of a payment, from its fee lines. */
function paymentFee(feeType: 'SERVICE_FEE' | 'TAXES_FEE'): RawBuilder<bigint> {
  return sql<bigint>`(select coalesce(sum((f.line ->> 'amount_minor')::bigint), 0)::bigint from jsonb_array_elements(${p('fee_lines')}) as f(line)
    where f.line ->> 'fee_type' = ${sql.lit(feeType)})`;
}

/** A column of a payment's latest dispute (docs/disputes.md), or null when it has none. */
function latestDispute(column: keyof DisputesTable & string): RawBuilder<unknown> {
  return sql`(select ${sql.ref(`d.${column}`)} from disputes as d where d.payment_token = ${p('payment_token')} order by d.created_at desc, d.dispute_id limit 1)`;
}

const PAYOUT_STATUSES = ['CREATED', 'PROCESSING', 'PAID', 'REJECTED', 'CANCELED'] as const; // contract, Payouts
const STATUSES = [...new Set<string>([...PAYMENT_STATUSES, ...PAYOUT_STATUSES, ...SETTLEMENT_STATUSES])];
const METHODS = [...PAYMENT_METHODS, 'BANK_TRANSFER'];
/** Where a payment's method is paid: MX for the Mexican methods, BR for the others (payments/methods.ts). */
const MEXICAN_METHODS = PAYMENT_METHODS.filter((m) => METHOD_MARKET[m].country === 'MX');
const CARD_SCHEMES = ['VISA', 'MASTER', 'ELO', 'AMERICAN_EXPRESS', 'DINERS_CLUB', 'DISCOVER', 'JCB'];
const CURRENCIES: readonly string[] = CURRENCY_CODES;
const TAX_ID_TYPE_VALUES = [...new Set<string>(['CPF', 'CNPJ', ...Object.values(TAX_ID_TYPES).flat()])];
const ACCOUNT_TYPE_VALUES = [...new Set<string>(Object.values(ACCOUNT_TYPES).flat())];

const BOTH: readonly ReportType[] = ['MERCHANT', 'PAYIN'];
const MERCHANT_ONLY: readonly ReportType[] = ['MERCHANT'];
/** The currency field of the amounts in the payment currency (BRL for pay-ins, the payout's currency for payouts). */
const CURRENCY = 34;

export const FIELD_CATALOGUE: readonly CatalogueField[] = [
  // Transaction fields.
  { id: 1, name: 'transaction_status', group: 'transaction', type: 'enum', values: STATUSES, reportTypes: BOTH, description: 'Current status of the payment, payout or settlement', payin: p('status'), payout: po('status'), settlement: st('status') },
  { id: 2, name: 'transaction_id', group: 'transaction', type: 'string', plain: true, reportTypes: BOTH, description: 'Payment token of a payment, tx_id of a payout, settlement_id of a settlement', payin: sql`${p('payment_token')}::text`, payout: sql`${po('tx_id')}::text`, settlement: sql`${st('settlement_id')}::text` },
  { id: 3, name: 'reference_id', group: 'transaction', type: 'string', reportTypes: BOTH, description: "The merchant's reference", payin: p('reference_id'), payout: po('reference_id') },
  { id: 4, name: 'method', group: 'transaction', type: 'enum', values: METHODS, reportTypes: BOTH, description: 'Payment or payout method', payin: p('method'), payout: po('method') },
  { id: 5, name: 'transaction_type', group: 'transaction', type: 'enum', values: ['PAYIN', 'PAYOUT', 'SETTLEMENT'], reportTypes: BOTH, description: 'PAYIN for a payment, PAYOUT for a payout, SETTLEMENT for money paid into the merchant\'s bank account', payin: sql`'PAYIN'::text`, payout: sql`'PAYOUT'::text`, settlement: sql`'SETTLEMENT'::text` },
  { id: 6, name: 'contract_id', group: 'transaction', type: 'string', reportTypes: BOTH, description: 'Contract (payments) or payout contract (payouts)', payin: p('contract_id'), payout: po('contract_id') },
  { id: 7, name: 'created_at', group: 'transaction', type: 'date', reportTypes: BOTH, description: 'When it was created (merchant clock)', payin: p('created_at'), payout: po('created_at'), settlement: st('created_at') },
  { id: 8, name: 'paid_at', group: 'transaction', type: 'date', reportTypes: BOTH, description: 'When it was paid; empty when it was not', payin: p('paid_at'), payout: po('paid_at'), settlement: st('paid_at') },
  { id: 9, name: 'updated_at', group: 'transaction', type: 'date', reportTypes: BOTH, description: 'When its status last changed', payin: p('updated_at'), payout: po('updated_at'), settlement: st('updated_at') },
  { id: 10, name: 'error_code', group: 'transaction', type: 'string', reportTypes: BOTH, description: 'Decline or rejection code', payin: p('error_code'), payout: po('error_code'), settlement: st('failure_code') },
  { id: 11, name: 'error_description', group: 'transaction', type: 'string', reportTypes: BOTH, description: 'Decline or rejection reason', payin: p('error_description'), payout: po('error_description'), settlement: st('failure_description') },
  { id: 12, name: 'country', group: 'transaction', type: 'enum', values: ['BR', 'MX', 'CO', 'PE', 'CL'], reportTypes: BOTH, description: "The country of the payment's method (MX for OXXO, PAYNET and SPEI, BR for the others); the payout country for payouts", payin: sql`case when ${p('method')} in (${sql.join(MEXICAN_METHODS.map((m) => sql.lit(m)))}) then 'MX' else 'BR' end`, payout: po('country'), settlement: sql`case when ${st('currency')} = 'MXN' then 'MX' else 'BR' end` },

  // Customer fields: the payer of a payment, the recipient of a payout. Tax ids are masked.
  { id: 20, name: 'customer_name', group: 'customer', type: 'string', reportTypes: BOTH, description: 'Payer name; recipient full name', payin: pe('name'), payout: po('full_name') },
  { id: 21, name: 'customer_email', group: 'customer', type: 'string', reportTypes: BOTH, description: 'Payer or recipient e-mail', payin: pe('email'), payout: po('email') },
  { id: 22, name: 'tax_id_type', group: 'customer', type: 'enum', values: TAX_ID_TYPE_VALUES, reportTypes: BOTH, description: 'CPF or CNPJ; for payouts the Andean type (DNI, RUC, NIT, RUT, …)', payin: pe('tax_id_type'), payout: po('tax_id_type') },
  { id: 23, name: 'tax_id', group: 'customer', type: 'string', reportTypes: BOTH, description: 'Tax id, masked: `***.982.247-**` (CPF), `**.222.333/****-**` (CNPJ), last three characters otherwise', masked: true, payin: maskedTaxId(pe('tax_id_type'), pe('tax_id')), payout: maskedTaxId(po('tax_id_type'), po('tax_id')) },
  { id: 24, name: 'customer_id', group: 'customer', type: 'string', plain: true, reportTypes: BOTH, description: 'public_person_id of the payer', payin: sql`${p('person_id')}::text`, payout: null },
  { id: 25, name: 'order_ip', group: 'customer', type: 'string', reportTypes: BOTH, description: "The payer's IP address (sendPayment's ip_address; the hosted page's client address)", payin: p('ip_address'), payout: null },
  { id: 26, name: 'order_ip_country', group: 'customer', type: 'string', plain: true, reportTypes: BOTH, description: 'ISO country of order_ip, looked up when the payment was created; empty for a private, loopback or unknown address', payin: p('ip_country'), payout: null },

  // Payment fields.
  { id: 30, name: 'card_scheme', group: 'payment', type: 'enum', values: CARD_SCHEMES, reportTypes: BOTH, description: 'Card scheme', payin: c('scheme'), payout: null },
  { id: 31, name: 'card_number', group: 'payment', type: 'string', plain: true, reportTypes: BOTH, description: 'Masked card number (first six and last four digits)', payin: c('masked_number'), payout: null },
  { id: 32, name: 'installments', group: 'payment', type: 'number', reportTypes: BOTH, description: 'Number of installments', payin: p('installments'), payout: null },
  { id: 33, name: 'amount', group: 'payment', type: 'money', currencyField: CURRENCY, reportTypes: BOTH, description: 'Amount in the payment currency (after FX); a settlement\'s amount', payin: p('amount_minor'), payout: po('amount_minor'), settlement: st('amount_minor') },
  { id: 34, name: 'currency', group: 'payment', type: 'enum', values: CURRENCIES, reportTypes: BOTH, description: 'Payment currency', payin: p('currency'), payout: po('currency'), settlement: st('currency') },
  { id: 35, name: 'original_amount', group: 'payment', type: 'money', currencyField: 36, reportTypes: BOTH, description: 'Amount as the merchant gave it', payin: p('original_amount_minor'), payout: po('original_amount_minor') },
  { id: 36, name: 'original_currency', group: 'payment', type: 'enum', values: CURRENCIES, reportTypes: BOTH, description: 'Currency of original_amount', payin: p('original_currency'), payout: po('original_currency') },
  { id: 37, name: 'captured_amount', group: 'payment', type: 'money', currencyField: CURRENCY, reportTypes: BOTH, description: 'Amount captured', payin: p('captured_minor'), payout: null },
  { id: 38, name: 'refunded_amount', group: 'payment', type: 'money', currencyField: CURRENCY, reportTypes: BOTH, description: 'Amount refunded', payin: p('refunded_minor'), payout: null },
  { id: 39, name: 'expiration_date', group: 'payment', type: 'date', reportTypes: BOTH, description: 'Last moment to pay', payin: p('expires_at'), payout: null },

  // Fee fields, all in the payment currency.
  { id: 50, name: 'merchant_fees', group: 'fee', type: 'money', currencyField: CURRENCY, reportTypes: BOTH, description: 'Fees charged to the merchant', payin: p('merchant_fees_minor'), payout: po('merchant_fees_minor') },
  { id: 51, name: 'customer_fees', group: 'fee', type: 'money', currencyField: CURRENCY, reportTypes: BOTH, description: 'Fees charged to the customer', payin: p('customer_fees_minor'), payout: po('customer_fees_minor') },
  { id: 52, name: 'total_fees', group: 'fee', type: 'money', currencyField: CURRENCY, reportTypes: BOTH, description: 'merchant_fees + customer_fees', payin: sql`(${p('merchant_fees_minor')} + ${p('customer_fees_minor')})`, payout: sql`(${po('merchant_fees_minor')} + ${po('customer_fees_minor')})` },
  { id: 53, name: 'customer_amount', group: 'fee', type: 'money', currencyField: CURRENCY, reportTypes: BOTH, description: 'What the customer pays (amount + customer fees); for payouts what the recipient gets (amount − customer fees)', payin: sql`(${p('amount_minor')} + ${p('customer_fees_minor')})`, payout: po('customer_amount_minor') },
  { id: 54, name: 'net_amount', group: 'fee', type: 'money', currencyField: CURRENCY, reportTypes: BOTH, description: 'Effect on the merchant: amount − merchant fees for payments, −(amount + merchant fees) for payouts', payin: sql`(${p('amount_minor')} - ${p('merchant_fees_minor')})`, payout: sql`(-${po('merchant_amount_minor')})` },
  { id: 55, name: 'service_fee', group: 'fee', type: 'money', currencyField: CURRENCY, reportTypes: BOTH, description: 'The SERVICE_FEE lines of a payment', payin: paymentFee('SERVICE_FEE'), payout: null },
  { id: 56, name: 'taxes_fee', group: 'fee', type: 'money', currencyField: CURRENCY, reportTypes: BOTH, description: 'The TAXES_FEE lines of a payment', payin: paymentFee('TAXES_FEE'), payout: null },

  // Dispute fields: the payment's latest dispute (docs/disputes.md); empty when it has none.
  { id: 70, name: 'dispute_id', group: 'dispute', type: 'string', plain: true, reportTypes: BOTH, description: "The payment's latest dispute", payin: sql`${latestDispute('dispute_id')}::text`, payout: null },
  { id: 71, name: 'dispute_status', group: 'dispute', type: 'enum', values: DISPUTE_STATUSES, reportTypes: BOTH, description: 'Its status', payin: latestDispute('status'), payout: null },
  { id: 72, name: 'dispute_stage', group: 'dispute', type: 'enum', values: DISPUTE_STAGES, reportTypes: BOTH, description: 'Its stage: inquiry, chargeback, second chargeback or pre-arbitration', payin: latestDispute('stage'), payout: null },
  { id: 73, name: 'dispute_reason_code', group: 'dispute', type: 'string', reportTypes: BOTH, description: "The network's reason code (Visa 10.4, Mastercard 4837, MED_FRAUDE)", payin: latestDispute('reason_code'), payout: null },
  { id: 74, name: 'dispute_reason_category', group: 'dispute', type: 'enum', values: DISPUTE_REASON_CATEGORIES, reportTypes: BOTH, description: 'Its reason category', payin: latestDispute('reason_category'), payout: null },
  { id: 75, name: 'disputed_amount', group: 'dispute', type: 'money', currencyField: CURRENCY, reportTypes: BOTH, description: 'The amount it disputes', payin: latestDispute('amount_minor'), payout: null },
  { id: 76, name: 'dispute_fee', group: 'dispute', type: 'money', currencyField: CURRENCY, reportTypes: BOTH, description: 'The dispute fee it charged', payin: latestDispute('fee_minor'), payout: null },
  { id: 77, name: 'dispute_evidence_due_by', group: 'dispute', type: 'date', reportTypes: BOTH, description: 'Its deadline for evidence (merchant clock)', payin: latestDispute('evidence_due_by'), payout: null },

  // Balance fields (docs/balance-and-settlements.md): when money reaches the merchant.
  { id: 80, name: 'available_on', group: 'balance', type: 'date', reportTypes: BOTH, description: "When a payment's money is first available (its first part, midnight UTC of that day)", payin: sql`(select (min(bt.available_on)::timestamp at time zone 'UTC') from balance_transactions as bt where bt.source_id = ${p('payment_token')}::text and bt.type = 'PAYMENT' and bt.bucket = 'BALANCE')`, payout: null },
  { id: 81, name: 'balance_net', group: 'balance', type: 'money', currencyField: CURRENCY, reportTypes: BOTH, description: "What it added to the merchant's balance: a payment's PAYMENT transactions, a payout's or a settlement's (negative)", payin: balanceNet(sql`${p('payment_token')}::text`, 'PAYMENT'), payout: balanceNet(sql`${po('tx_id')}::text`, 'PAYOUT'), settlement: balanceNet(sql`${st('settlement_id')}::text`, 'SETTLEMENT') },
  { id: 82, name: 'arrival_date', group: 'balance', type: 'date', reportTypes: MERCHANT_ONLY, description: "When a settlement is in the merchant's bank account (expected while PENDING; midnight UTC of that day)", payin: null, payout: null, settlement: sql`(${st('arrival_date')}::timestamp at time zone 'UTC')` },

  // Payout fields: only MERCHANT reports include payouts.
  { id: 60, name: 'bank_code', group: 'payout', type: 'string', reportTypes: MERCHANT_ONLY, description: 'Bank of the recipient account', payin: null, payout: po('bank_code') },
  { id: 61, name: 'account_type', group: 'payout', type: 'enum', values: ACCOUNT_TYPE_VALUES, reportTypes: MERCHANT_ONLY, description: 'Recipient account type', payin: null, payout: po('account_type') },
  { id: 62, name: 'account_number', group: 'payout', type: 'string', reportTypes: MERCHANT_ONLY, description: 'Recipient account number, last four digits shown', masked: true, payin: null, payout: maskedAccountNumber(po('account_number')) },
  { id: 63, name: 'batch_id', group: 'payout', type: 'string', plain: true, reportTypes: MERCHANT_ONLY, description: 'The payout batch the item came in', payin: null, payout: sql`${po('batch_id')}::text` },
];

const BY_ID = new Map(FIELD_CATALOGUE.map((field) => [field.id, field]));

/** @example catalogueField(33)?.name // 'amount' */
export function catalogueField(id: number): CatalogueField | undefined {
  return BY_ID.get(id);
}

/**
 * The rows a report reads: one per payment of the merchant (PAYIN), or one per payment, payout and
 * settlement (MERCHANT), each with a key `k` (for a stable order) and one column `f<id>` per field asked
 * for. Only this merchant's rows are read: the merchant id is a parameter of every branch.
 * @example sql`select t.f1 from (${sourceQuery('PAYIN', [1], merchantId)}) as t`
 */
export function sourceQuery(reportType: ReportType, fieldIds: readonly number[], merchantId: string): RawBuilder<unknown> {
  const fields = fieldIds.map((id) => {
    const field = catalogueField(id);
    if (!field) throw new Error(`field ${id} is not in the catalogue`);
    return field;
  });
  const columns = (read: (field: CatalogueField) => RawBuilder<unknown> | null) =>
    sql.join(fields.map((field) => sql`${read(field) ?? sql`null::${sql.raw(SQL_TYPES[field.type])}`} as ${sql.ref(`f${field.id}`)}`));
  // Unused left joins on primary keys are removed by the planner, so they cost nothing when no person or card field is asked for.
  const payin = sql`select ${p('payment_token')} as k, ${columns((field) => field.payin)}
    from payments as p
    left join persons as pe on pe.id = ${p('person_id')}
    left join cards as c on c.id = ${p('card_id')}
    where ${p('merchant_id')} = ${merchantId}`;
  if (reportType === 'PAYIN') return payin;
  const payout = sql`select ${po('tx_id')} as k, ${columns((field) => field.payout)}
    from payouts as po
    where ${po('merchant_id')} = ${merchantId}`;
  const settlement = sql`select ${st('settlement_id')} as k, ${columns((field) => field.settlement ?? null)}
    from settlements as st
    where ${st('merchant_id')} = ${merchantId}`;
  return sql`${payin} union all ${payout} union all ${settlement}`;
}

/**
 * The catalogue as the Markdown table of docs/reports.md.
 * @example renderCatalogueTable().startsWith('| id |') // true
 */
export function renderCatalogueTable(): string {
  const rows = FIELD_CATALOGUE.map((f) => {
    const type = f.type === 'money' ? `money (currency: ${f.currencyField})` : f.type;
    const values = f.values ? `: ${f.values.join(', ')}` : f.masked ? ' (masked)' : '';
    return `| ${f.id} | \`${f.name}\` | ${f.group} | ${type}${values} | ${f.reportTypes.join(', ')} | ${f.description.replace(/\|/g, '\\|')} |`;
  });
  return ['| id | name | group | type | report types | meaning |', '| ---: | --- | --- | --- | --- | --- |', ...rows].join('\n');
}
