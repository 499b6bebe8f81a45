import { exponentOf } from '../lib/currencies';
import { formatAmount, readDecimal, toMinorUnits } from '../lib/money';

/**
 * Adyen's Settlement details report: a CSV file with one header line and one line per entry (a
 * payment settled, a refund, a chargeback, the month's fees, the payout of the batch), in the columns
 * below. The column set and the record types are Adyen's published ones: "Settlement detail report
 * structure" (docs.adyen.com/developers/reporting/settlement-detail-report/settlement-detail-report-structure,
 * positions 1 to 9 and the list of Type values) and the sample lines of "Settlement details report"
 * (docs.adyen.com/reporting/settlement-reconciliation/transaction-level/settlement-details-report: 30
 * fields per line, from Company Account to Reserved10), as found with the search tool's pages corpus.
 *
 * Columns are found by name in the header, so their order may change and added columns are ignored, as
 * Adyen allows ("you can add more columns, or change the order of the default columns"). A column Colibri
 * reads must be present. Each column has a type, checked on every line; a file with a value of the
 * wrong type is refused whole, naming the line and the column.
 */

export type ColumnType = 'text' | 'amount' | 'datetime' | 'timezone' | 'currency' | 'record-type' | 'rate' | 'integer';

export interface ReportColumn {
  readonly name: string;
  readonly type: ColumnType;
  /** Colibri reads it: the header must have it. */
  readonly required: boolean;
  /** For an amount: the column holding its currency. */
  readonly currency?: 'Gross Currency' | 'Net Currency';
}

/** The published columns, in the published order (which is the order Colibri writes them in). */
export const SETTLEMENT_DETAILS_COLUMNS: readonly ReportColumn[] = [
  { name: 'Company Account', type: 'text', required: false },
  { name: 'Merchant Account', type: 'text', required: true },
  { name: 'Psp Reference', type: 'text', required: true },
  { name: 'Merchant Reference', type: 'text', required: true },
  { name: 'Payment Method', type: 'text', required: false },
  { name: 'Creation Date', type: 'datetime', required: true },
  { name: 'TimeZone', type: 'timezone', required: true },
  { name: 'Type', type: 'record-type', required: true },
  { name: 'Modification Reference', type: 'text', required: true },
  { name: 'Gross Currency', type: 'currency', required: true },
  { name: 'Gross Debit (GC)', type: 'amount', required: true, currency: 'Gross Currency' },
  { name: 'Gross Credit (GC)', type: 'amount', required: true, currency: 'Gross Currency' },
  { name: 'Exchange Rate', type: 'rate', required: false },
  { name: 'Net Currency', type: 'currency', required: true },
  { name: 'Net Debit (NC)', type: 'amount', required: true, currency: 'Net Currency' },
  { name: 'Net Credit (NC)', type: 'amount', required: true, currency: 'Net Currency' },
  { name: 'Commission (NC)', type: 'amount', required: true, currency: 'Net Currency' },
  { name: 'Markup (NC)', type: 'amount', required: true, currency: 'Net Currency' },
  { name: 'Scheme Fees (NC)', type: 'amount', required: true, currency: 'Net Currency' },
  { name: 'Interchange (NC)', type: 'amount', required: true, currency: 'Net Currency' },
  { name: 'Payment Method Variant', type: 'text', required: false },
  { name: 'Modification Merchant Reference', type: 'text', required: true },
  { name: 'Batch Number', type: 'integer', required: true },
  ...[4, 5, 6, 7, 8, 9, 10].map((n): ReportColumn => ({ name: `Reserved${n}`, type: 'text', required: false })),
];

/**
 * What each record type settles, and which of Colibri's records it is matched against
 * (matching-rules.ts): a payment captured, a refund, a dispute. Types that settle no operation of
 * Colibri's (the month's fees, the payout of the batch to Colibri's bank account, corrections) are
 * counted as informational and matched against nothing.
 */
export const RECORD_TYPES = {
  Settled: 'payment',
  Refunded: 'refund',
  RefundedReversed: 'refund',
  Chargeback: 'dispute',
  SecondChargeback: 'dispute',
  ChargebackReversed: 'dispute',
  Fee: null,
  MiscCosts: null,
  MerchantPayout: null,
  DepositCorrection: null,
  InvoiceDeduction: null,
  MatchedStatement: null,
  ManualCorrected: null,
  BankInstructionReturned: null,
  EpaPaid: null,
  Balancetransfer: null,
  PaymentCost: null,
  PaidOut: null,
  PaidOutReversed: null,
} as const satisfies Record<string, 'payment' | 'refund' | 'dispute' | null>;

export type RecordType = keyof typeof RECORD_TYPES;

/**
 * Hours from UTC of the time zone abbreviations a report's TimeZone column may hold (the account's
 * setting: "BST, CET, CEST, etc."). One not listed refuses the file at its line, rather than a date
 * read in the wrong zone.
 */
export const TIME_ZONES: Readonly<Record<string, number>> = {
  UTC: 0,
  GMT: 0,
  WET: 0,
  WEST: 1,
  BST: 1,
  CET: 1,
  CEST: 2,
  EET: 2,
  EEST: 3,
  BRT: -3,
  BRST: -2,
  ART: -3,
  CLT: -4,
  CLST: -3,
  COT: -5,
  PET: -5,
  EST: -5,
  EDT: -4,
  CST: -6,
  CDT: -5,
  MST: -7,
  MDT: -6,
  PST: -8,
  PDT: -7,
  SGT: 8,
  HKT: 8,
  JST: 9,
  AEST: 10,
  AEDT: 11,
};

/** One line of a report, read and typed. Amounts are minor units of their column's currency. */
export interface SettlementLine {
  readonly line: number;
  readonly merchantAccount: string;
  readonly pspReference: string;
  readonly merchantReference: string;
  readonly type: RecordType;
  readonly creationDate: Date | null;
  /** Hours from UTC of the line's TimeZone (0 when it has no date). */
  readonly zoneOffsetHours: number;
  readonly modificationReference: string;
  readonly modificationMerchantReference: string;
  readonly grossCurrency: string;
  /** Gross Credit less Gross Debit: positive for money to Colibri (Settled), negative for money from it (Refunded, Chargeback). */
  readonly grossMinor: bigint;
  readonly netCurrency: string;
  /** Net Credit less Net Debit. */
  readonly netMinor: bigint;
  /** Commission, Markup, Scheme Fees and Interchange together: what the processor kept. */
  readonly feeMinor: bigint;
  readonly batchNumber: number | null;
}

/** A report that is not of this format: where and why (a 400 naming the line and the column). */
export class ReportFormatError extends Error {
  constructor(
    readonly kind: 'HEADER' | 'COLUMN_COUNT' | 'VALUE',
    readonly line: number,
    readonly column: number | undefined,
    readonly columnName: string | undefined,
    readonly reason: string,
  ) {
    super(`line ${line}${column === undefined ? '' : `, column ${column}${columnName ? ` (${columnName})` : ''}`}: ${reason}`);
    this.name = 'ReportFormatError';
  }
}

/** Where each column Colibri reads sits in a file, from its header. */
export interface ColumnLayout {
  readonly width: number;
  /** Index of each known column in the file, or -1 when the file has none (an optional column). */
  readonly at: ReadonlyMap<string, number>;
}

/**
 * Reads the header line: every required column present once, no known column twice.
 * @example settlementLayout(['Company Account', 'Merchant Account', …], 1).at.get('Psp Reference') // 2
 */
export function settlementLayout(header: readonly string[], line: number): ColumnLayout {
  const at = new Map<string, number>();
  header.forEach((raw, index) => {
    const name = raw.trim();
    if (!SETTLEMENT_DETAILS_COLUMNS.some((c) => c.name === name)) return;
    if (at.has(name)) throw new ReportFormatError('HEADER', line, index + 1, name, `the column "${name}" appears twice in the header`);
    at.set(name, index);
  });
  const missing = SETTLEMENT_DETAILS_COLUMNS.filter((c) => c.required && !at.has(c.name)).map((c) => `"${c.name}"`);
  if (missing.length > 0) {
    throw new ReportFormatError('HEADER', line, undefined, undefined, `the header is not a Settlement details report's: it lacks ${missing.join(', ')}`);
  }
  return { width: header.length, at };
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/;
const CURRENCY = /^[A-Z]{3}$/;
const INTEGER = /^\d{1,15}$/;

/**
 * Reads one line in a file's layout, checking every known column's type; the first fault found is the
 * one named.
 * @example readSettlementLine({ line: 2, fields }, layout).grossMinor // 500n
 */
export function readSettlementLine(record: { readonly line: number; readonly fields: readonly string[] }, layout: ColumnLayout): SettlementLine {
  const { line, fields } = record;
  if (fields.length !== layout.width) {
    throw new ReportFormatError('COLUMN_COUNT', line, Math.min(fields.length, layout.width) + 1, undefined, `the line has ${fields.length} columns, the header ${layout.width}`);
  }
  const text = (name: string): string => {
    const index = layout.at.get(name);
    return index === undefined ? '' : (fields[index] as string).trim();
  };
  const fail = (name: string, reason: string): never => {
    const index = layout.at.get(name) ?? -1;
    throw new ReportFormatError('VALUE', line, index + 1, name, reason);
  };

  const typeText = text('Type');
  if (!Object.hasOwn(RECORD_TYPES, typeText)) fail('Type', `"${typeText}" is not a record type of the report (${Object.keys(RECORD_TYPES).join(', ')})`);
  const type = typeText as RecordType;
  const currencyOf = (name: 'Gross Currency' | 'Net Currency'): string => {
    const value = text(name);
    if (value !== '' && !CURRENCY.test(value)) fail(name, `"${value}" is not a currency code (three capital letters)`);
    return value;
  };
  const grossCurrency = currencyOf('Gross Currency');
  const netCurrency = currencyOf('Net Currency');
  const amount = (name: string, currencyColumn: 'Gross Currency' | 'Net Currency', currency: string): bigint => {
    const value = text(name);
    if (value === '') return 0n;
    const parts = readDecimal(value);
    if (!parts || parts.negative) fail(name, `"${value}" is not an amount (a decimal such as 10.50, without a sign)`);
    if (currency === '') fail(currencyColumn, `is empty, but ${name} holds an amount`);
    const exponent = exponentOf(currency);
    if ((parts as NonNullable<typeof parts>).fraction.length > exponent) fail(name, `"${value}" has more decimals than ${currency} has`);
    const minor = toMinorUnits(parts as NonNullable<typeof parts>, exponent);
    if (minor === undefined) fail(name, `"${value}" is too large`);
    return minor as bigint;
  };
  const gross = (credit: string, debit: string) => amount(credit, 'Gross Currency', grossCurrency) - amount(debit, 'Gross Currency', grossCurrency);
  const grossMinor = gross('Gross Credit (GC)', 'Gross Debit (GC)');
  const netMinor = amount('Net Credit (NC)', 'Net Currency', netCurrency) - amount('Net Debit (NC)', 'Net Currency', netCurrency);
  const feeMinor = ['Commission (NC)', 'Markup (NC)', 'Scheme Fees (NC)', 'Interchange (NC)'].reduce((sum, name) => sum + amount(name, 'Net Currency', netCurrency), 0n);

  const rate = text('Exchange Rate');
  if (rate !== '' && !readDecimal(rate)) fail('Exchange Rate', `"${rate}" is not a decimal number`);
  const batch = text('Batch Number');
  if (batch !== '' && !INTEGER.test(batch)) fail('Batch Number', `"${batch}" is not a whole number`);

  const zone = text('TimeZone');
  const creationDate = dateOf(text('Creation Date'), zone, RECORD_TYPES[type] !== null, fail);
  return {
    line,
    merchantAccount: text('Merchant Account'),
    pspReference: text('Psp Reference'),
    merchantReference: text('Merchant Reference'),
    type,
    creationDate,
    zoneOffsetHours: creationDate === null ? 0 : (TIME_ZONES[zone] ?? 0),
    modificationReference: text('Modification Reference'),
    modificationMerchantReference: text('Modification Merchant Reference'),
    grossCurrency,
    grossMinor,
    netCurrency,
    netMinor,
    feeMinor,
    batchNumber: batch === '' ? null : Number(batch),
  };
}

/** Creation Date in its line's TimeZone, as an instant; required on the lines that settle an operation. */
function dateOf(value: string, zone: string, required: boolean, fail: (name: string, reason: string) => never): Date | null {
  if (value === '') {
    if (required) fail('Creation Date', 'is empty, but the line settles an operation');
    return null;
  }
  const match = DATE_TIME.exec(value);
  if (!match) fail('Creation Date', `"${value}" is not a date and time (YYYY-MM-DD HH:MM:SS)`);
  const [, y, mo, d, h, mi, s] = (match as RegExpExecArray).map(Number) as [number, number, number, number, number, number, number];
  const utc = Date.UTC(y, mo - 1, d, h, mi, s);
  const check = new Date(utc);
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) {
    fail('Creation Date', `"${value}" is not a date of the calendar`);
  }
  const offset = TIME_ZONES[zone];
  if (offset === undefined) fail('TimeZone', `"${zone}" is not a time zone Colibri knows (${Object.keys(TIME_ZONES).join(', ')})`);
  return new Date(utc - (offset as number) * 3_600_000);
}

/** The values of one line Colibri writes (the sandbox's report); columns left out are empty. */
export interface SettlementLineValues {
  readonly companyAccount: string;
  readonly merchantAccount: string;
  readonly pspReference: string;
  readonly merchantReference: string;
  readonly paymentMethod: string;
  /** Written in UTC. */
  readonly creationDate: Date;
  readonly type: RecordType;
  readonly modificationReference: string;
  readonly currency: string;
  /** Positive: what the line moves, in the direction its type gives (Settled is a credit, Refunded a debit). */
  readonly grossMinor: bigint;
  readonly credit: boolean;
  readonly fees: { readonly commission: bigint; readonly markup: bigint; readonly schemeFees: bigint; readonly interchange: bigint };
  readonly modificationMerchantReference: string;
  readonly batchNumber: number;
}

/** The header line, as Colibri writes it. */
export function settlementHeaderLine(): string {
  return `${SETTLEMENT_DETAILS_COLUMNS.map((c) => csvField(c.name)).join(',')}\n`;
}

/**
 * One line in the published column order. A credit's net is its gross less the fees; a debit's net is
 * its gross plus them (the processor keeps its fees either way).
 */
export function settlementLine(v: SettlementLineValues): string {
  const exponent = exponentOf(v.currency);
  const money = (minor: bigint) => formatAmount(minor, exponent);
  const fee = v.fees.commission + v.fees.markup + v.fees.schemeFees + v.fees.interchange;
  const net = v.credit ? v.grossMinor - fee : v.grossMinor + fee;
  const optional = (minor: bigint) => (minor === 0n ? '' : money(minor));
  const byName: Record<string, string> = {
    'Company Account': v.companyAccount,
    'Merchant Account': v.merchantAccount,
    'Psp Reference': v.pspReference,
    'Merchant Reference': v.merchantReference,
    'Payment Method': v.paymentMethod,
    'Creation Date': v.creationDate.toISOString().slice(0, 19).replace('T', ' '),
    TimeZone: 'UTC',
    Type: v.type,
    'Modification Reference': v.modificationReference,
    'Gross Currency': v.currency,
    'Gross Debit (GC)': v.credit ? '' : money(v.grossMinor),
    'Gross Credit (GC)': v.credit ? money(v.grossMinor) : '',
    'Exchange Rate': '1',
    'Net Currency': v.currency,
    'Net Debit (NC)': v.credit ? '' : money(net),
    'Net Credit (NC)': v.credit ? money(net) : '',
    'Commission (NC)': optional(v.fees.commission),
    'Markup (NC)': optional(v.fees.markup),
    'Scheme Fees (NC)': optional(v.fees.schemeFees),
    'Interchange (NC)': optional(v.fees.interchange),
    'Payment Method Variant': v.paymentMethod,
    'Modification Merchant Reference': v.modificationMerchantReference,
    'Batch Number': String(v.batchNumber),
  };
  return `${SETTLEMENT_DETAILS_COLUMNS.map((c) => csvField(byName[c.name] ?? '')).join(',')}\n`;
}

function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}
