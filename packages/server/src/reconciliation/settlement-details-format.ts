import { BoundedMap } from '../lib/bounded-map';
import { exponentOf } from '../lib/currencies';
import { formatAmount, readDecimal } from '../lib/money';
import { ownEntry } from '../lib/own-entry';

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
  /** Index of each known column in the file; a column the file lacks (an optional one) is absent. */
  readonly at: ReadonlyMap<string, number>;
  /** The same, for the columns read on every line (-1: the file has none). */
  readonly index: Readonly<Record<ReadColumn, number>>;
  /** Each column's name, by index, as the header gives it. */
  readonly names: readonly string[];
}

/** The columns read on every line, by the names the reader gives them. */
const READ_COLUMNS = {
  merchantAccount: 'Merchant Account',
  pspReference: 'Psp Reference',
  merchantReference: 'Merchant Reference',
  creationDate: 'Creation Date',
  timeZone: 'TimeZone',
  type: 'Type',
  modificationReference: 'Modification Reference',
  grossCurrency: 'Gross Currency',
  grossDebit: 'Gross Debit (GC)',
  grossCredit: 'Gross Credit (GC)',
  exchangeRate: 'Exchange Rate',
  netCurrency: 'Net Currency',
  netDebit: 'Net Debit (NC)',
  netCredit: 'Net Credit (NC)',
  commission: 'Commission (NC)',
  markup: 'Markup (NC)',
  schemeFees: 'Scheme Fees (NC)',
  interchange: 'Interchange (NC)',
  modificationMerchantReference: 'Modification Merchant Reference',
  batchNumber: 'Batch Number',
} as const;
type ReadColumn = keyof typeof READ_COLUMNS;

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
  const index = Object.fromEntries(Object.entries(READ_COLUMNS).map(([key, name]) => [key, at.get(name) ?? -1])) as Record<ReadColumn, number>;
  return { width: header.length, at, index, names: header.map((name) => name.trim()) };
}

/**
 * Reads one line in a file's layout, checking the type of every column it reads; the first fault
 * found is the one named. Written for speed (a report may have a million lines): no closure or regular
 * expression per line, amounts read digit by digit, each calendar day checked once.
 * @example readSettlementLine({ line: 2, fields }, layout).grossMinor // 500n
 */
export function readSettlementLine(record: { readonly line: number; readonly fields: readonly string[] }, layout: ColumnLayout): SettlementLine {
  const { line, fields } = record;
  const ix = layout.index;
  const where: Where = { line, names: layout.names };
  if (fields.length !== layout.width) {
    throw new ReportFormatError('COLUMN_COUNT', line, Math.min(fields.length, layout.width) + 1, undefined, `the line has ${fields.length} columns, the header ${layout.width}`);
  }
  const typeText = cell(fields, ix.type);
  if (!RECORD_TYPE_NAMES.has(typeText)) fault(where, ix.type, `"${typeText}" is not a record type of the report (${[...RECORD_TYPE_NAMES].join(', ')})`);
  const type = typeText as RecordType;
  const grossCurrency = currencyCell(fields, ix.grossCurrency, where);
  const netCurrency = currencyCell(fields, ix.netCurrency, where);
  const grossExponent = exponentOf(grossCurrency);
  const netExponent = netCurrency === grossCurrency ? grossExponent : exponentOf(netCurrency);
  // Amounts are read as numbers (exact: at most 15 digits each, so a sum of four stays below 2^53) and
  // made bigints once: a bigint is a heap object, and a million lines of them cost the garbage collector.
  const grossMinor = BigInt(
    amountCell(fields, ix.grossCredit, where, grossCurrency, ix.grossCurrency, grossExponent) - amountCell(fields, ix.grossDebit, where, grossCurrency, ix.grossCurrency, grossExponent),
  );
  const netMinor = BigInt(amountCell(fields, ix.netCredit, where, netCurrency, ix.netCurrency, netExponent) - amountCell(fields, ix.netDebit, where, netCurrency, ix.netCurrency, netExponent));
  const feeMinor = BigInt(
    amountCell(fields, ix.commission, where, netCurrency, ix.netCurrency, netExponent) +
      amountCell(fields, ix.markup, where, netCurrency, ix.netCurrency, netExponent) +
      amountCell(fields, ix.schemeFees, where, netCurrency, ix.netCurrency, netExponent) +
      amountCell(fields, ix.interchange, where, netCurrency, ix.netCurrency, netExponent),
  );
  const rate = cell(fields, ix.exchangeRate);
  if (rate !== '' && rate !== '1' && !readDecimal(rate)) fault(where, ix.exchangeRate, `"${rate}" is not a decimal number`);
  const batch = cell(fields, ix.batchNumber);
  if (batch !== '' && !INTEGER.test(batch)) fault(where, ix.batchNumber, `"${batch}" is not a whole number`);
  const zone = cell(fields, ix.timeZone);
  const creationDate = dateCell(fields, ix.creationDate, ix.timeZone, zone, RECORD_TYPES[type] !== null, where);
  return {
    line,
    merchantAccount: cell(fields, ix.merchantAccount),
    pspReference: cell(fields, ix.pspReference),
    merchantReference: cell(fields, ix.merchantReference),
    type,
    creationDate,
    zoneOffsetHours: creationDate === null ? 0 : (ownEntry(TIME_ZONES, zone) ?? 0),
    modificationReference: cell(fields, ix.modificationReference),
    modificationMerchantReference: cell(fields, ix.modificationMerchantReference),
    grossCurrency,
    grossMinor,
    netCurrency,
    netMinor,
    feeMinor,
    batchNumber: batch === '' ? null : Number(batch),
  };
}

const RECORD_TYPE_NAMES: ReadonlySet<string> = new Set(Object.keys(RECORD_TYPES));
const INTEGER = /^\d{1,15}$/;
const SPACE = 32;

/** A field's text without surrounding spaces (most have none, and are returned as they are). */
function cell(fields: readonly string[], index: number): string {
  if (index < 0) return '';
  const value = fields[index] as string;
  return value.length > 0 && (value.charCodeAt(0) <= SPACE || value.charCodeAt(value.length - 1) <= SPACE) ? value.trim() : value;
}

/** The line being read and its file's column names, for an error that names both. */
interface Where {
  readonly line: number;
  readonly names: readonly string[];
}

function fault(where: Where, index: number, reason: string): never {
  throw new ReportFormatError('VALUE', where.line, index + 1, where.names[index], reason);
}

function currencyCell(fields: readonly string[], index: number, where: Where): string {
  const value = cell(fields, index);
  if (value === '') return value;
  if (value.length !== 3 || !isCapital(value, 0) || !isCapital(value, 1) || !isCapital(value, 2)) fault(where, index, `"${value}" is not a currency code (three capital letters)`);
  return value;
}

function isCapital(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  return code >= 65 && code <= 90;
}

/**
 * An amount column in minor units of its currency (0 when empty): digits, at most one point, no sign,
 * at most the currency's decimals and 15 digits in all (below 2^53, so the digits are read exactly).
 */
function amountCell(fields: readonly string[], index: number, where: Where, currency: string, currencyIndex: number, exponent: number): number {
  const value = cell(fields, index);
  if (value === '') return 0;
  let minor = 0;
  let digits = 0;
  let decimals = -1;
  for (let i = 0; i < value.length; i += 1) {
    const code = value.charCodeAt(i);
    if (code >= 48 && code <= 57) {
      minor = minor * 10 + (code - 48);
      digits += 1;
      if (decimals >= 0) decimals += 1;
    } else if (code === 46 && decimals < 0 && i > 0 && i < value.length - 1) {
      decimals = 0;
    } else {
      fault(where, index, `"${value}" is not an amount (a decimal such as 10.50, without a sign)`);
    }
  }
  if (currency === '') fault(where, currencyIndex, `is empty, but column ${index + 1} holds an amount`);
  const places = decimals < 0 ? 0 : decimals;
  if (places > exponent) fault(where, index, `"${value}" has more decimals than ${currency} has`);
  if (digits + (exponent - places) > 15) fault(where, index, `"${value}" is too large`);
  return minor * 10 ** (exponent - places);
}

/** Days already checked to be of the calendar, as `YYYY-MM-DD` → milliseconds of their midnight (UTC). */
const DAYS = new BoundedMap<string, number>(10_001);

/** Creation Date in its line's TimeZone, as an instant; required on the lines that settle an operation. */
function dateCell(fields: readonly string[], index: number, zoneIndex: number, zone: string, required: boolean, where: Where): Date | null {
  const value = cell(fields, index);
  if (value === '') {
    if (required) fault(where, index, 'is empty, but the line settles an operation');
    return null;
  }
  const sep = value.charCodeAt(10);
  if (value.length !== 19 || (sep !== SPACE && sep !== 84) || value.charCodeAt(13) !== 58 || value.charCodeAt(16) !== 58) {
    fault(where, index, `"${value}" is not a date and time (YYYY-MM-DD HH:MM:SS)`);
  }
  const day = value.slice(0, 10);
  let midnight = DAYS.get(day);
  if (midnight === undefined) {
    const match = DATE.exec(day);
    const [y, mo, d] = match ? [Number(match[1]), Number(match[2]), Number(match[3])] : [0, 0, 0];
    const utc = Date.UTC(y, mo - 1, d);
    const check = new Date(utc);
    if (!match || check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d) fault(where, index, `"${value}" is not a date of the calendar`);
    DAYS.set(day, utc);
    midnight = utc;
  }
  const h = twoDigits(value, 11);
  const mi = twoDigits(value, 14);
  const s = twoDigits(value, 17);
  if (h < 0 || mi < 0 || s < 0 || h > 23 || mi > 59 || s > 59) fault(where, index, `"${value}" is not a date of the calendar`);
  // Only the table's own zones: a TimeZone such as `constructor` is one Colibri does not know.
  const offset = ownEntry(TIME_ZONES, zone);
  if (offset === undefined) fault(where, zoneIndex, `"${zone}" is not a time zone Colibri knows (${Object.keys(TIME_ZONES).join(', ')})`);
  return new Date(midnight + h * 3_600_000 + mi * 60_000 + s * 1000 - (offset as number) * 3_600_000);
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function twoDigits(text: string, at: number): number {
  const a = text.charCodeAt(at) - 48;
  const b = text.charCodeAt(at + 1) - 48;
  return a < 0 || a > 9 || b < 0 || b > 9 ? -1 : a * 10 + b;
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
